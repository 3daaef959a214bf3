// parseCount(): a count a user or an HTTP client typed (`?seconds=30`,
// a port), read strictly: 1 to 9 decimal digits and nothing else, so no
// sign, space, base prefix or overflow gets through. -1 for anything else.
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <string_view>

namespace strobe {

inline int64_t parseCount(std::string_view s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace strobe
