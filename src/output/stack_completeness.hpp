// The stack-completeness line of reports, e.g.
//   98.7% of the sampled CPU reached the thread's entry; 1.3% truncated at
//   the 16 KiB stack copy: try -g dwarf,32768
// from model::stackCompleteness (shares of the sampled weight, judged from
// the stacks the reports show) and the recording's call-graph mode.
// Thread safety: pure over a const Profile.
#pragma once

#include <cstdint>
#include <string>

#include "model/profile.hpp"

namespace strobe::output {

// The line without a trailing newline; "" when there are no samples.
std::string stackCompletenessLine(const model::Profile& p);

// How the line writes part/total (total > 0): "12.3%", and never "0.0%" or
// "100.0%" for a share that is not exactly that ("<0.1%", ">99.9%").
std::string completenessShare(uint64_t part, uint64_t total);

}  // namespace strobe::output
