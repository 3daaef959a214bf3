#include "symbolize/jit_table.hpp"

#include <algorithm>

namespace strobe::symbolize {

bool JitTable::update(const model::Profile& p) {
  const std::vector<model::JitCode>& code = p.jitCode();
  // Unload times may change without new entries (a move ends its source).
  times_.resize(code.size());
  for (size_t i = 0; i < code.size(); ++i) times_[i] = Times{code[i].load_ns, code[i].unload_ns};
  if (code.size() == seen_) return false;
  seen_ = code.size();
  by_pid_.clear();
  for (size_t i = 0; i < code.size(); ++i) {
    const model::JitCode& c = code[i];
    if (c.size == 0 || c.start > UINT64_MAX - c.size) continue;
    by_pid_[c.pid].ranges.push_back(
        Range{c.start, c.start + c.size, static_cast<model::JitCodeId>(i)});
  }
  for (auto& [pid, r] : by_pid_) {
    std::stable_sort(r.ranges.begin(), r.ranges.end(),
                     [](const Range& a, const Range& b) { return a.start < b.start; });
    r.max_end.resize(r.ranges.size());
    uint64_t m = 0;
    for (size_t i = 0; i < r.ranges.size(); ++i) r.max_end[i] = m = std::max(m, r.ranges[i].end);
  }
  return true;
}

void JitTable::candidates(int32_t pid, uint64_t address, std::vector<model::JitCodeId>& out) const {
  out.clear();
  auto it = by_pid_.find(pid);
  if (it == by_pid_.end()) return;
  const PidRanges& r = it->second;
  auto after = std::upper_bound(r.ranges.begin(), r.ranges.end(), address,
                                [](uint64_t a, const Range& x) { return a < x.start; });
  // Walk back while some earlier range may still reach the address.
  for (auto i = static_cast<size_t>(after - r.ranges.begin()); i-- > 0;) {
    if (r.max_end[i] <= address) break;
    if (address < r.ranges[i].end) out.push_back(r.ranges[i].id);
  }
  std::sort(out.begin(), out.end(), [&](model::JitCodeId a, model::JitCodeId b) {
    return times_[a].load != times_[b].load ? times_[a].load < times_[b].load : a < b;
  });
}

model::JitCodeId JitTable::choose(const std::vector<model::JitCodeId>& candidates,
                                  int64_t time_ns) const {
  if (candidates.empty()) return model::kNone;
  // The last one loaded at or before the time...
  auto after =
      std::upper_bound(candidates.begin(), candidates.end(), time_ns,
                       [&](int64_t t, model::JitCodeId id) { return t < times_[id].load; });
  if (after != candidates.begin()) {
    model::JitCodeId id = *(after - 1);
    return time_ns < times_[id].unload ? id : model::kNone;
  }
  // ...else the oldest: of those loaded at the same first time, the one learnt last.
  auto first = candidates.begin();
  auto last = first;
  while (last + 1 != candidates.end() && times_[*(last + 1)].load == times_[*first].load) ++last;
  return *last;
}

model::JitCodeId JitTable::lookup(int32_t pid, uint64_t address, int64_t time_ns) const {
  std::vector<model::JitCodeId> c;
  candidates(pid, address, c);
  return choose(c, time_ns);
}

}  // namespace strobe::symbolize
