#include "record/throttle_account.hpp"

#include <algorithm>

namespace strobe::record {

void ThrottleAccount::takeSample(const std::vector<model::Sample>& samples) {
  const model::Sample& s = samples.back();
  auto a = awaiting_.find(s.tid);
  if (a == awaiting_.end()) return;
  if (auto o = open_.find(a->second); o != open_.end()) {
    o->second.index = samples.size() - 1;
    o->second.sample_time = s.time_ns;
    o->second.cpu = s.cpu;
  }
  awaiting_.erase(a);
}

void ThrottleAccount::cutByOthers(const model::Sample& s, uint64_t time) {
  for (auto& [id, o] : open_) {
    if (o.index != SIZE_MAX && o.tid != s.tid && o.cpu == s.cpu && time > o.start) {
      o.cut = std::min(o.cut, time);
    }
  }
}

void ThrottleAccount::onThrottle(uint64_t event_id, int32_t tid, uint64_t time) {
  open_[event_id] = Open{tid, time, SIZE_MAX};
  awaiting_[tid] = event_id;
}

void ThrottleAccount::close(const Open& o, uint64_t time, std::vector<model::Sample>& samples) {
  const uint64_t length = time > o.start ? time - o.start : 0;
  throttled_ns_ += length;
  if (!weigh_ || o.index >= samples.size() || samples[o.index].tid != o.tid ||
      samples[o.index].time_ns != o.sample_time) {
    return;
  }
  const uint64_t end = std::min(time, o.cut);
  const uint64_t add = std::min(end > o.start ? end - o.start : 0, kMaxTickNs);
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

void ThrottleAccount::afterCompaction(size_t dropped, const std::vector<model::Sample>& samples) {
  if (dropped == 0) return;
  for (auto& [id, o] : open_) {
    if (o.index == SIZE_MAX) continue;
    // Erasing keeps the order: the sample is now `dropped` or fewer places
    // down, or gone.
    const size_t lo = o.index > dropped ? o.index - dropped : 0;
    size_t found = SIZE_MAX;
    for (size_t i = std::min(o.index + 1, samples.size()); i > lo; --i) {
      if (samples[i - 1].tid == o.tid && samples[i - 1].time_ns == o.sample_time) {
        found = i - 1;
        break;
      }
    }
    o.index = found;
  }
}

}  // namespace strobe::record
