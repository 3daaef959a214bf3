// What `strobe list` shows of a perf.data: when it was recorded, for how
// long, how many samples, of which command. The data is counted, not
// converted: no symbolization, no ordering.
// Thread safety: a pure function (reads the file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace strobe::import {

struct PerfDataSummary {
  std::vector<std::string> command;  // as Meta::command
  std::string target;                // as Meta::target
  uint64_t start_realtime_ns = 0;    // 0 when unknown
  uint64_t duration_ns = 0;          // first to last sample
  uint64_t samples = 0;              // SAMPLE records of every event
  bool cut_short = false;            // the file ends early or breaks
};

Result<PerfDataSummary> summarizePerfData(const std::string& path);

}  // namespace strobe::import
