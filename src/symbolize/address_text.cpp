#include "symbolize/address_text.hpp"

#include <cstdlib>

namespace strobe::symbolize {

uint64_t parseAddress(const char* s) {
  // The usual line, "0x" and up to 16 hex digits, read here: strtoull's
  // locale and sign handling cost more than the lookup of the address.
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t v = 0;
    int n = 0;
    for (const char* p = s + 2;; ++p, ++n) {
      unsigned d;
      if (*p >= '0' && *p <= '9') {
        d = static_cast<unsigned>(*p - '0');
      } else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f') {
        d = static_cast<unsigned>((*p | 0x20) - 'a' + 10);
      } else {
        if (*p == '\0' && n > 0 && n <= 16) return v;
        break;
      }
      v = v << 4 | d;
    }
  }
  while (*s == ' ' || (*s >= '\t' && *s <= '\r')) ++s;
  return *s == '-' ? 0 : std::strtoull(s, nullptr, 16);
}

}  // namespace strobe::symbolize
