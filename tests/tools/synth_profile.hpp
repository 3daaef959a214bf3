// Synthetic profiles for output tests and benchmarks: known shares, inline
// chains, several named threads, unresolved frames, and a function whose
// name is hostile markup (`<script>alert(1)</script>&"'`).
//
// The small profile (`samples` as given, wide == false) has these self
// shares of CPU time: synth::hot_loop() 50%, synth::helper(int) (inlined
// into synth::compute(int)) 20%, synth::compute(int) 10%, the hostile
// function 5%, libc.so.6+0x9a0f0 5%, worker_main(void*) 10%; threads main,
// worker-1 and worker-2. wide == true adds 2,000 generated functions on
// 40,000 distinct call paths up to 32 deep that take half of the samples,
// the first paths far more often (for benchmarks). Deterministic.
#pragma once

#include <cstddef>

#include "model/profile.hpp"

namespace strobe::test {

inline constexpr const char* kHostileName = "<script>alert(1)</script>&\"'";

model::Profile synthProfile(size_t samples, bool wide);

// Spans and roles on the workers of a synthProfile: workers 1001 and 1002
// get the roles "worker 1" and "worker 2" and, from 10 ms on, a span
// "request" of 20 ms every 50 ms (each with a nested "parse" of its first
// 2 ms), except that worker 1's 8th request takes 200 ms and worker 2's
// 12th 150 ms: the two slowest. Span boundaries are whole milliseconds.
void addSynthSpans(model::Profile& p);

// synthProfile as recorded with --off-cpu: worker-2's samples in the second
// half of the recording become off-CPU intervals of the same stacks and
// times (half waiting for a lock, half for I/O), so that thread is off CPU
// from the middle on.
model::Profile synthOffCpuProfile(size_t samples);

}  // namespace strobe::test
