#include "record/throttle_account.hpp"

#include <algorithm>

namespace strobe::record {

void ThrottleAccount::takeSample(int32_t tid, size_t index) {
  auto a = awaiting_.find(tid);
  if (a == awaiting_.end()) return;
  if (auto o = open_.find(a->second); o != open_.end()) o->second.index = index;
  awaiting_.erase(a);
}

void ThrottleAccount::onThrottle(uint64_t event_id, int32_t tid, uint64_t time) {
  open_[event_id] = Open{tid, time, SIZE_MAX};
  awaiting_[tid] = event_id;
}

void ThrottleAccount::close(const Open& o, uint64_t time, std::vector<model::Sample>& samples) {
  const uint64_t length = time > o.start ? time - o.start : 0;
  throttled_ns_ += length;
  if (!weigh_ || o.index >= samples.size() || samples[o.index].tid != o.tid) return;
  const uint64_t add = std::min(length, kMaxTickNs);
  samples[o.index].weight += add;
  weighted_ns_ += add;
}

void ThrottleAccount::onUnthrottle(uint64_t event_id, uint64_t time,
                                   std::vector<model::Sample>& samples) {
  auto o = open_.find(event_id);
  if (o == open_.end()) return;  // throttled before the recording began
  close(o->second, time, samples);
  if (auto a = awaiting_.find(o->second.tid); a != awaiting_.end() && a->second == event_id) {
    awaiting_.erase(a);
  }
  open_.erase(o);
}

void ThrottleAccount::onExit(int32_t tid, uint64_t time, std::vector<model::Sample>& samples) {
  awaiting_.erase(tid);
  for (auto o = open_.begin(); o != open_.end();) {
    if (o->second.tid == tid) {
      close(o->second, time, samples);
      o = open_.erase(o);
    } else {
      ++o;
    }
  }
}

}  // namespace strobe::record
