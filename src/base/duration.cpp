#include "base/duration.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace strobe {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Nanoseconds per unit; 0 when the unit is unknown.
uint64_t unitNs(std::string_view unit) {
  if (unit == "h") return 3'600'000'000'000ULL;
  if (unit == "m" || unit == "min") return 60'000'000'000ULL;
  if (unit == "s") return 1'000'000'000ULL;
  if (unit == "ms") return 1'000'000ULL;
  if (unit == "us") return 1'000ULL;
  if (unit == "ns") return 1ULL;
  return 0;
}

}  // namespace

Result<uint64_t> parseDuration(std::string_view text) {
  auto malformed = [&] {
    return makeError("malformed duration '" + std::string(text) + "'",
                     "use e.g. 30s, 1h30m, 250ms, 100us or plain seconds (2.5)", ErrorKind::kUsage);
  };
  auto tooLong = [&] {
    return makeError("duration '" + std::string(text) + "' is out of range",
                     "give at most 584 years (2^64 ns)", ErrorKind::kUsage);
  };
  if (text.empty()) return malformed();
  uint64_t total = 0;
  std::string_view s = text;
  bool first = true;
  while (!s.empty()) {
    // The number: digits, optionally '.' and more digits; one digit at least.
    uint64_t whole = 0;
    bool overflow = false;
    size_t i = 0;
    for (; i < s.size() && isDigit(s[i]); ++i) {
      overflow |= __builtin_mul_overflow(whole, 10, &whole);
      overflow |= __builtin_add_overflow(whole, static_cast<uint64_t>(s[i] - '0'), &whole);
    }
    size_t digits = i;
    double fraction = 0;  // of the digits after '.', correctly rounded
    if (i < s.size() && s[i] == '.') {
      size_t dot = i;
      for (++i; i < s.size() && isDigit(s[i]); ++i) ++digits;
      if (i > dot + 1) std::from_chars(s.data() + dot, s.data() + i, fraction);
    }
    if (digits == 0) return malformed();
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && s[u] >= 'a' && s[u] <= 'z') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t scale = 0;
    if (unit.empty()) {
      if (!first || !s.empty()) return malformed();  // plain seconds only alone
      scale = unitNs("s");
    } else {
      scale = unitNs(unit);
      if (scale == 0) return malformed();
    }
    uint64_t part = 0;
    overflow |= __builtin_mul_overflow(whole, scale, &part);
    // fraction < 1, so its share is below one unit and fits.
    overflow |= __builtin_add_overflow(
        part, static_cast<uint64_t>(std::llround(fraction * static_cast<double>(scale))), &part);
    overflow |= __builtin_add_overflow(total, part, &total);
    if (overflow) return tooLong();
    first = false;
  }
  return total;
}

}  // namespace strobe
