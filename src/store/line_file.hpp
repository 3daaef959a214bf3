// The file column of a location_lines row (docs/FORMAT.md): '' when the line
// lies in its function's own file (most do), else the line's file. One rule
// for the writer and the stream, so a streamed recording reads back as the
// written one.
#pragma once

#include <string>

#include "model/profile.hpp"

namespace strobe::store {

inline const std::string& storedLineFile(const model::Profile& p, const model::Line& line) {
  const bool own = line.function < p.functions().size() &&
                   p.str(line.file) == p.str(p.functions()[line.function].file);
  return own ? p.str(model::kEmptyString) : p.str(line.file);
}

}  // namespace strobe::store
