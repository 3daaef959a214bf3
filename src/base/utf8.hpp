// UTF-8 sequence checking, for every writer that must emit valid UTF-8 or
// printable text. Thread safety: pure.
#pragma once

#include <string_view>

namespace strobe {

// The length of the valid UTF-8 sequence at s[i] (1-4), or 0 when invalid
// (bad lead byte, missing continuation bytes, or cut off by the end).
inline size_t utf8Length(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace strobe
