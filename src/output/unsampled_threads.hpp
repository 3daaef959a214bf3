// The line reports give for threads that exited without a single sample,
// e.g.
//   2000 threads ran 1.49 s of CPU but were never sampled: each ran less
//   than one sampling period (10.1 ms at 99 Hz), or only in the kernel
//   (which -k samples)
// from the recording's meta (see model::Meta::unsampled_threads).
// Thread safety: pure.
#pragma once

#include <string>

#include "model/profile.hpp"

namespace strobe::output {

// The line without a trailing newline; "" when no thread went unsampled.
std::string unsampledThreadsLine(const model::Meta& m);

}  // namespace strobe::output
