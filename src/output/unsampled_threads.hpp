// The line reports give for threads that exited without a single sample,
// e.g.
//   2000 threads ran 1.49 s of CPU but were never sampled: each ran less
//   than one sampling period (10.1 ms at 99 Hz), or only in the kernel
//   (which -k samples)
// from the recording's meta (see model::Meta::unsampled_threads); and the
// line for threads the profiler could not sample at all (libstrobe's perf
// engine out of locked memory for rings, model::Meta::refused_threads), e.g.
//   58 threads were never sampled: cannot map a 8 KiB perf ring: ...; the
//   process ran 3.00 s of CPU, 1.38 s of it sampled
// Thread safety: pure.
#pragma once

#include <string>

#include "model/profile.hpp"

namespace strobe::output {

// The line without a trailing newline; "" when no thread went unsampled.
std::string unsampledThreadsLine(const model::Meta& m);
// The line without a trailing newline; "" when no thread was refused.
std::string refusedThreadsLine(const model::Profile& p);
inline constexpr const char* kRefusedThreadsHint =
    "the timer engine (STROBE_ENGINE=timer, engine=timer) samples every thread without locked "
    "memory; or raise kernel.perf_event_mlock_kb";

}  // namespace strobe::output
