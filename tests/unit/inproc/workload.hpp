// The in-process workloads of the libstrobe tests: 6 : 3 : 1 units of the
// same work per round (work_six, work_three, work_one), and a thread that
// alternates burning CPU with sleeping.
#pragma once

#include <time.h>

#include <cstdint>

#include "../../fixtures/burn.hpp"

namespace strobe::test {

inline uint64_t g_unit = 100000;

// An opaque call: the work functions below are not leaves, so they keep a
// frame (gcc drops the frame of leaf functions that need no stack even with
// -mno-omit-leaf-frame-pointer, and a frame-pointer walk then skips their
// caller).
__attribute__((noinline)) inline void touch() {
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) inline void work_six() {
  BURN(6 * g_unit);
  touch();
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) inline void work_three() {
  BURN(3 * g_unit);
  touch();
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) inline void work_one() {
  BURN(1 * g_unit);
  touch();
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) inline void shares_worker(int rounds) {
  for (int i = 0; i < rounds; ++i) {
    work_six();
    work_three();
    work_one();
  }
  asm volatile("" ::: "memory");  // keep the frame (no tail calls)
}

inline uint64_t nowNs(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
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
