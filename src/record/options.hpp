// Parsing what users type for a recording's targets and length:
// durations ("30s", "5m", "1h30m", "250ms", plain seconds "10" or "2.5")
// and pid lists ("123", "123,456").
// Owns: nothing. Thread safety: pure functions. Errors are kUsage with a
// one-line message and a hint; bad input never crashes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::record {

// Nanoseconds; zero or negative durations are refused.
Result<uint64_t> parseDuration(std::string_view text);

// Positive pids, in the order given, duplicates removed.
Result<std::vector<pid_t>> parsePidList(std::string_view text);

}  // namespace strobe::record
