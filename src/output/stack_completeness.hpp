// The stack-completeness line of reports, e.g.
//   98.7% of samples reached the thread's entry; 1.3% truncated at the 16 KiB
//   stack copy: try -g dwarf,32768
// from model::stackCompleteness and the recording's call-graph mode.
// Thread safety: pure over a const Profile.
#pragma once

#include <string>

#include "model/profile.hpp"

namespace strobe::output {

// The line without a trailing newline; "" when there are no samples.
std::string stackCompletenessLine(const model::Profile& p);

}  // namespace strobe::output
