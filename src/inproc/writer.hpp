// Writing the last profile in a report format, or as a native recording
// (format "db", or a path ending in .db: the SQLite file `strobe record`
// writes, for strobe report, query and every format): the format is named,
// or follows the output path's extension, or is text. Thread safety: pure
// over a const Profile (a recording for a stream or memory goes through a
// temporary file in $TMPDIR, removed after).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::inproc {

// format "" : from the path's extension, else text.
Status writeProfileFile(const model::Profile& p, std::string_view format, const std::string& path);
Status writeProfileStream(const model::Profile& p, std::string_view format, std::FILE* out);
// The whole output as bytes (the HTTP endpoint).
Result<std::string> profileBytes(const model::Profile& p, std::string_view format);

}  // namespace strobe::inproc
