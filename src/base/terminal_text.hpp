// Text bound for a terminal. Names in a profile (functions, files, threads,
// modules, command arguments) are bytes chosen by the profiled program: an
// escape sequence in a thread name would retitle or clear the user's
// terminal, a newline in a function name would forge a line of the report.
// terminalSafe() writes every byte that a terminal would act on instead of
// show as `\xNN`: the C0 controls (tab and newline included) and DEL, the C1
// controls U+0080..U+009F, and bytes that are not valid UTF-8 (a lone 0x9B
// is CSI to a terminal not in UTF-8 mode). Everything else is unchanged.
// Thread safety: pure.
#pragma once

#include <string>
#include <string_view>

#include "base/utf8.hpp"

namespace strobe {

// The bytes s[i..) that a terminal must not receive raw: 0 when s[i] starts
// printable text, else how many bytes to escape (1, or 2 for a C1 control).
inline size_t terminalUnsafeLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c == 0x7F) return 1;
  if (c < 0x80) return 0;
  size_t n = utf8Length(s, i);
  if (n == 0) return 1;
  if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) return 2;  // C1
  return 0;
}

// `s` with each unsafe byte written as \xNN (lowercase hex).
inline std::string terminalSafe(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && terminalUnsafeLength(s, i) == 0) {
    auto c = static_cast<unsigned char>(s[i]);
    i += c < 0x80 ? 1 : utf8Length(s, i);
  }
  if (i == s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  static constexpr char kHex[] = "0123456789abcdef";
  while (i < s.size()) {
    size_t bad = terminalUnsafeLength(s, i);
    if (bad == 0) {
      size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8Length(s, i);
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    for (size_t k = 0; k < bad; ++k, ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace strobe
