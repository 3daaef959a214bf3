// hexString: bytes as lowercase hex, two digits each (build-ids).
// Thread safety: a pure function. Allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strobe {

inline std::string hexString(const uint8_t* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[bytes[i] >> 4];
    s += kDigits[bytes[i] & 15];
  }
  return s;
}

}  // namespace strobe
