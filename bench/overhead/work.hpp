// The benchmarks' fixed CPU work: a 13-deep call chain (level() 12 times
// above leaf()), the depth of typical programs. Shared by the overhead
// workload and the libstrobe breakdown so both measure the same work.
#pragma once

#include <cstdint>

namespace strobe::bench {

inline volatile uint64_t g_sink;

__attribute__((noinline)) inline uint64_t leaf(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

__attribute__((noinline)) inline uint64_t level(int depth, uint64_t x, uint64_t n) {
  if (depth == 0) return leaf(x, n);
  return level(depth - 1, x, n) ^ depth;
}

// `rounds` rounds of the chain, each 20,000 steps of work at the leaf.
__attribute__((noinline)) inline void work(uint64_t rounds) {
  uint64_t x = 1;
  for (uint64_t r = 0; r < rounds; ++r) x = level(12, x, 20000);
  g_sink = x;
}

}  // namespace strobe::bench
