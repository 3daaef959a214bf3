// User-facing messages on stderr, always prefixed "strobe: ".
// An error or warning is one line of what happened and, optionally, one line
// of what to do ("  hint: ..."); control characters in either are written
// as \xNN (base/terminal_text.hpp). Thread safety: each call writes whole lines
// with one write(2). Not async-signal-safe.
#pragma once

#include <string_view>

#include "base/result.hpp"

namespace strobe {

void logError(std::string_view message, std::string_view hint = {});
void logWarning(std::string_view message, std::string_view hint = {});
void logInfo(std::string_view message);
inline void logError(const Error& e) {
  logError(e.describe(), e.hint);
}

}  // namespace strobe
