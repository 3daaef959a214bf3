// The in-process workloads of the libstrobe tests: 6 : 3 : 1 units of the
// same work per round (work_six, work_three, work_one), and a thread that
// alternates burning CPU with sleeping.
#pragma once

#include <time.h>

#include <cstdint>

#include "../../fixtures/burn.hpp"

namespace strobe::test {

inline uint64_t g_unit = 100000;
// The unit of this thread's current round (shares_worker draws it).
inline thread_local uint64_t t_unit = 100000;

// An opaque call: the work functions below are not leaves, so they keep a
// frame (gcc drops the frame of leaf functions that need no stack even with
// -mno-omit-leaf-frame-pointer, and a frame-pointer walk then skips their
// caller).
__attribute__((noinline)) inline void touch() {
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) inline void work_six() {
  BURN(6 * t_unit);
  touch();
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) inline void work_three() {
  BURN(3 * t_unit);
  touch();
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) inline void work_one() {
  BURN(1 * t_unit);
  touch();
  asm volatile("" ::: "memory");
}
inline uint64_t nowNs(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// The CPU time work_six, work_three and work_one took on one thread, by its
// own clock: 6 : 3 : 1 on an idle machine, less so when other work shares
// the core's caches and pipelines.
struct SharesSpent {
  uint64_t six = 0, three = 0, one = 0;
};

// Rounds of varied length (burn.hpp says why).
__attribute__((noinline)) inline void shares_worker(int rounds, SharesSpent* spent = nullptr) {
  uint32_t seed = newRoundSeed();
  for (int i = 0; i < rounds; ++i) {
    t_unit = roundUnit(g_unit, seed);
    const uint64_t t0 = spent != nullptr ? nowNs(CLOCK_THREAD_CPUTIME_ID) : 0;
    work_six();
    const uint64_t t1 = spent != nullptr ? nowNs(CLOCK_THREAD_CPUTIME_ID) : 0;
    work_three();
    const uint64_t t2 = spent != nullptr ? nowNs(CLOCK_THREAD_CPUTIME_ID) : 0;
    work_one();
    if (spent != nullptr) {
      const uint64_t t3 = nowNs(CLOCK_THREAD_CPUTIME_ID);
      spent->six += t1 - t0;
      spent->three += t2 - t1;
      spent->one += t3 - t2;
    }
  }
  asm volatile("" ::: "memory");  // keep the frame (no tail calls)
}

// Burns `ns` of this thread's CPU time.
__attribute__((noinline)) inline void burn_phase(uint64_t ns) {
  uint64_t until = nowNs(CLOCK_THREAD_CPUTIME_ID) + ns;
  while (nowNs(CLOCK_THREAD_CPUTIME_ID) < until) BURN(2000);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) inline void sleep_phase(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ULL), static_cast<long>(ns % 1000000000ULL)};
  while (nanosleep(&ts, &ts) != 0) {
  }
  asm volatile("" ::: "memory");
}

}  // namespace strobe::test
