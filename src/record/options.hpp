// Parsing what users type for a recording's targets and length:
// session durations (base/duration.hpp's forms, at least 1ms) and pid
// lists ("123", "123,456").
// Owns: nothing. Thread safety: pure functions. Errors are kUsage with a
// one-line message and a hint; bad input never crashes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::record {

// A duration for record's -d and top's --interval and --window, in
// nanoseconds: strobe::parseDuration, then at least 1ms and at most 1e18 ns.
Result<uint64_t> parseSessionDuration(std::string_view text);

// Positive pids, in the order given, duplicates removed.
Result<std::vector<pid_t>> parsePidList(std::string_view text);

}  // namespace strobe::record
