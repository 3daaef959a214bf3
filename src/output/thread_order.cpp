#include "output/thread_order.hpp"

#include <algorithm>

#include "model/spans.hpp"

namespace strobe::output {

std::map<int32_t, std::vector<uint32_t>> samplesByThread(const model::Profile& p) {
  const std::vector<model::Sample>& samples = p.samples();
  std::map<int32_t, std::vector<uint32_t>> per_thread;
  for (uint32_t i = 0; i < samples.size(); ++i) per_thread[samples[i].tid].push_back(i);
  auto earlier = [&](uint32_t a, uint32_t b) { return samples[a].time_ns < samples[b].time_ns; };
  for (auto& [tid, idx] : per_thread) {
    if (!std::is_sorted(idx.begin(), idx.end(), earlier)) {
      std::stable_sort(idx.begin(), idx.end(), earlier);
    }
  }
  return per_thread;
}

std::string threadName(const model::Profile& p, int32_t tid) {
  const model::Thread* t = p.findThread(tid);
  return t != nullptr && !t->name.empty() ? t->name : "thread";
}

std::string threadLabel(const model::Profile& p, int32_t tid) {
  return model::threadTitle(p, tid);
}

}  // namespace strobe::output
