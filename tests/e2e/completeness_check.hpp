// The one check every recording of the end-to-end suite passes: the
// stack-completeness line of `strobe report DB` (and of record's summary)
// agrees with the stacks that report shows, recounted from `strobe report DB
// --format folded`. runProcess() and waitProcess() call it for every
// `strobe record ... -o DB` they run, so no test can forget it.
// Test-only; reports mismatches as gtest failures.
#pragma once

#include <string>
#include <vector>

#include "run_process.hpp"

namespace strobe::test {

// The line "stacks:" would say for these folded stacks ("a;b;c WEIGHT" per
// line) in its first part, "X% of the sampled UNIT reached the thread's
// entry", and the "[missing caller]" share, recounted independently.
struct FoldedCompleteness {
  unsigned long long total = 0;
  unsigned long long reached = 0;
  unsigned long long missing_caller = 0;
};
FoldedCompleteness recountFolded(const std::string& folded);

// For `argv` = {strobe, "record", ..., "-o", DB, ...} that produced `ran`:
// compares DB's completeness line with its folded stacks (nothing when DB
// was not written).
void checkRecordingCompleteness(const std::vector<std::string>& argv, const Ran& ran);

}  // namespace strobe::test
