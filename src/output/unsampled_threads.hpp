// The line reports give for CPU the kernel counted but no sample covers,
// from the recording's meta (model::Meta::unsampled_threads, _count), e.g.
//   2000 threads exited without a sample: each ran less than one sampling
//   period (10.1 ms at 99 Hz); 1.52 s of CPU that the kernel counted has no
//   sample in all (theirs, and the last part of a period of every other
//   thread)
// and the line for threads the profiler could not sample at all (libstrobe's perf
// engine out of locked memory for rings, model::Meta::refused_threads), e.g.
//   58 threads were never sampled: cannot map a 8 KiB perf ring: ...; the
//   process ran 3.00 s of CPU, 1.38 s of it sampled
// And what reports say about the target's own CPU: "1.90 s of the
// command's 1.93 s" next to the sampled CPU, and, when the kernel refused
// kernel sampling, the line
//   user time only: 1.51 s of the command's 1.93 s CPU was in the kernel and
//   not sampled (kernel.perf_event_paranoid is 2, which forbids ...)
// Thread safety: pure.
#pragma once

#include <string>

#include "model/profile.hpp"

namespace strobe::output {

// The line without a trailing newline; "" when no thread exited unsampled
// and what no sample covers is at most 1% of `sampled` (the samples' weight).
std::string unsampledLine(const model::Meta& m, uint64_t sampled);
// The line for sampling the kernel throttled, e.g.
//   the kernel throttled sampling 1523 times, for 0.85 s in all; 0.80 s of
//   CPU that went unsampled then is weighted onto the sample each throttle
//   began with
// "" when it did not (model::Meta::throttle_events).
std::string throttledLine(const model::Meta& m);
inline constexpr const char* kThrottledHint =
    "lower -F, or use -g fp (a smaller sample): the kernel lowers "
    "kernel.perf_event_max_sample_rate when its sampling interrupt runs long";
// The line without a trailing newline; "" when no thread was refused.
std::string refusedThreadsLine(const model::Profile& p);
// The sampled CPU (the CPU samples only, whatever the view: off-CPU
// intervals are left out), and the target's own CPU when known: "1.90 s of
// the command's 1.93 s", or "1.90 s". For libstrobe's wall mode, the
// sampled wall time.
std::string sampledCpuText(const model::Profile& p);
// The line without a trailing newline; "" when kernel time was sampled (or
// the recording does not say).
std::string kernelTimeLine(const model::Meta& m);
inline constexpr const char* kKernelTimeHint =
    "sudo sysctl kernel.perf_event_paranoid=1, or run as root or with CAP_PERFMON";
inline constexpr const char* kRefusedThreadsHint =
    "the timer engine (STROBE_ENGINE=timer, engine=timer) samples every thread without locked "
    "memory; or raise kernel.perf_event_mlock_kb";

}  // namespace strobe::output
