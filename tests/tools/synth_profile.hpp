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
// the first paths far more often (for benchmarks). uneven == true keeps a
// quarter of main's samples and half of worker-1's, so worker-2, the last
// thread, is the busiest (shares then differ from the above). A seed other
// than 0 draws the wide samples differently from the same call paths (two
// runs of one program, for strobe diff's benchmark). Deterministic.
#pragma once

#include <cstddef>
#include <string>

#include "model/profile.hpp"

namespace strobe::test {

inline constexpr const char* kHostileName = "<script>alert(1)</script>&\"'";

model::Profile synthProfile(size_t samples, bool wide, bool uneven = false, uint64_t seed = 0);

// synthProfile(3000, false), made once: the profile the writers' tests share.
inline const model::Profile& synth() {
  static const model::Profile p = synthProfile(3000, false);
  return p;
}

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

// synthProfile(samples, false) as a later run of the program in which
// synth::hot_loop() does 50% more work (half its samples doubled),
// synth::helper(int) half (every other sample gone) and the hostile
// function none; everything else as before. strobe diff's tests compare it
// with synthProfile.
model::Profile synthChangedProfile(size_t samples);

// The 6:3:1 profile of the viewer's tests: one thread, main (tid 2000),
// sampled every millisecond. The first 60% of the time runs main ->
// phase_one() -> hot_a(); the rest main -> phase_two() -> warm_b() (3/4)
// and cold_c() (1/4, inlined into phase_two). Self shares: hot_a 60%,
// warm_b 30%, cold_c 10%. hot_a's samples fall on lines 11 (1/6), 12 (3/4,
// the hottest) and 13 (1/12) of `source`, where it starts at line 10; a
// span "phase one" covers phase one. `idle_threads` more threads ("idle-00"
// ..., tid 3000 on) run cold_c() for 1, 2, ... samples each, the last with
// the role "io worker". Deterministic.
model::Profile synthPhasesProfile(size_t samples, const std::string& source,
                                  size_t idle_threads = 0);

}  // namespace strobe::test
