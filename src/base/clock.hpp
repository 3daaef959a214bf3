// Clocks. Sample times are CLOCK_MONOTONIC nanoseconds (the perf events are
// opened with use_clockid), so they compare directly with monotonicNs().
// Thread safety: all functions are thread-safe and async-signal-safe.
#pragma once

#include <time.h>

#include <cstdint>

namespace strobe {

inline uint64_t clockNs(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}
inline uint64_t monotonicNs() {
  return clockNs(CLOCK_MONOTONIC);
}
inline uint64_t realtimeNs() {
  return clockNs(CLOCK_REALTIME);
}

}  // namespace strobe
