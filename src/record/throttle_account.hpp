// ThrottleAccount: gives back to a thread's samples the CPU time the kernel
// did not sample while it throttled the thread's event.
//
// The kernel throttles a sampling event that fires more often in one tick
// than kernel.perf_event_max_sample_rate allows, and lowers that limit on
// its own when its sampling interrupt runs long (a stack copied per sample
// on a slow machine). It writes a THROTTLE record, the sample that hit the
// limit, and no sample of that event until the next tick (or the thread's
// next switch-in) unthrottles it (UNTHROTTLE). A thread that stays on the
// CPU loses part of every tick while a short-lived one hardly loses
// anything, so plain counts under-weight busy threads: on a 2-core machine
// whose limit the kernel had lowered, a thread that ran 60 s of CPU got
// 71% of a profile while it ran 78% of the CPU.
//
// The throttled interval (THROTTLE to UNTHROTTLE) is added to the weight of
// the sample the throttle began with: the thread was there when sampling
// stopped, and ran on until the tick. But a thread switched out before the
// tick is unthrottled at its next switch-in, so the interval also holds
// time it spent off the CPU, bounded two ways: it counts at most
// kMaxTickNs (one tick at 250 Hz), and no further than another thread's
// first sample on the throttling sample's CPU (that thread ran there, so
// the throttled one no longer did). What is left over-counts the time a
// task strobe does not sample ran there before the tick (a busy thread on
// a loaded VM was sampled 5.7% over its own clock, with 285 ms weighted
// in); the header's warning says how much was weighted in, which bounds
// it. The kernel's own count cannot bound it: since Linux 6.16 a throttled
// cpu-clock event stops counting too.
//
// Records come in time order: a THROTTLE, then its sample (same tid), ...,
// the UNTHROTTLE of the same event id. Thread safety: none (the converter's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/profile.hpp"

namespace strobe::record {

class ThrottleAccount {
 public:
  static constexpr uint64_t kMaxTickNs = 4'000'000;

  // weigh: the samples' weights are ns of CPU (cpu-clock, task-clock);
  // for counting events throttled time is only counted.
  explicit ThrottleAccount(bool weigh = true) : weigh_(weigh) {}

  // A CPU sample was added: the last of the Profile's `samples`; `time` is
  // its record's (the clock of the THROTTLE records).
  void onSample(const std::vector<model::Sample>& samples, uint64_t time) {
    if (!awaiting_.empty()) takeSample(samples);
    if (!open_.empty()) cutByOthers(samples.back(), time);
  }
  // THROTTLE and UNTHROTTLE of the event `event_id` (the record's id);
  // `samples` is the Profile's, whose throttled sample gains the interval.
  void onThrottle(uint64_t event_id, int32_t tid, uint64_t time);
  void onUnthrottle(uint64_t event_id, uint64_t time, std::vector<model::Sample>& samples);
  // The thread exited at `time`: its events are gone, their throttles end.
  void onExit(int32_t tid, uint64_t time, std::vector<model::Sample>& samples);
  // A compaction (model/compact.hpp) dropped `dropped` of the samples, in
  // order: the throttling samples it kept moved down, the others are gone.
  void afterCompaction(size_t dropped, const std::vector<model::Sample>& samples);

  // Throttled intervals' total length, and how much of it went into weights.
  [[nodiscard]] uint64_t throttledNs() const { return throttled_ns_; }
  [[nodiscard]] uint64_t weightedNs() const { return weighted_ns_; }

 private:
  struct Open {
    int32_t tid = 0;
    uint64_t start = 0;
    size_t index = SIZE_MAX;    // the throttling sample; SIZE_MAX until it comes or once gone
    uint64_t sample_time = 0;   // its time_ns: with tid, what identifies it
    uint32_t cpu = 0;           // its CPU, once it came
    uint64_t cut = UINT64_MAX;  // another thread's first sample on that CPU since then
  };
  void takeSample(const std::vector<model::Sample>& samples);
  void cutByOthers(const model::Sample& s, uint64_t time);
  void close(const Open& o, uint64_t time, std::vector<model::Sample>& samples);

  std::unordered_map<uint64_t, Open> open_;         // by throttled event id
  std::unordered_map<int32_t, uint64_t> awaiting_;  // tid -> event id awaiting its sample
  bool weigh_;
  uint64_t throttled_ns_ = 0;
  uint64_t weighted_ns_ = 0;
};

}  // namespace strobe::record
