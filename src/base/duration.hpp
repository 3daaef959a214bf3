// Parsing a duration the user typed on the command line, in nanoseconds.
//
// Accepts a sequence of number+unit parts ("30s", "1h30m", "250ms", "1.5s",
// "100us", "10ns"; units h, m or min, s, ms, us, ns; decimals in any part)
// or one plain number alone meaning seconds ("10", "2.5"). Zero is
// accepted: minimums are the caller's decision. Refuses empty text, signs,
// unknown units, spaces and trailing junk, and totals beyond 2^64 - 1 ns.
// Owns: nothing. Thread safety: a pure function. Errors are kUsage with a
// one-line message and a hint; bad input never crashes.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.hpp"

namespace strobe {

Result<uint64_t> parseDuration(std::string_view text);

}  // namespace strobe
