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
// thread, is the busiest (shares then differ from the above).
// Deterministic.
#pragma once

#include <cstddef>

#include "model/profile.hpp"

namespace strobe::test {

inline constexpr const char* kHostileName = "<script>alert(1)</script>&\"'";

model::Profile synthProfile(size_t samples, bool wide, bool uneven = false);

}  // namespace strobe::test
