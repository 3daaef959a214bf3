#include "record/off_cpu.hpp"

#include <algorithm>

namespace strobe::record {

OffCpuPairer::OffCpuPairer(model::Profile& profile, uint64_t start_ns, uint64_t min_ns)
    : profile_(profile), start_ns_(start_ns), min_ns_(min_ns) {}

model::Sample OffCpuPairer::sampleOf(int32_t tid, const Open& o, uint64_t end_ns) const {
  // Clipped to the session: it began no earlier than the start and ends no
  // earlier than it began.
  const uint64_t from = std::max(o.out_ns, start_ns_);
  const uint64_t to = std::max(end_ns, from);
  model::Sample s;
  s.time_ns = from - start_ns_;
  s.tid = tid;
  s.cpu = o.cpu;
  s.stack = o.stack;
  s.weight = to - from;
  s.stack_end = o.end;
  s.kind = model::SampleKind::kOffCpu;
  s.off_cpu_reason = o.preempted ? model::OffCpuReason::kPreempted : model::OffCpuReason::kUnknown;
  return s;
}

void OffCpuPairer::close(int32_t tid, const Open& o, uint64_t end_ns) {
  model::Sample s = sampleOf(tid, o, end_ns);
  if (s.weight < min_ns_ || s.weight == 0) {
    ++stats_.short_count;
    stats_.short_ns += s.weight;
    return;
  }
  ++stats_.intervals;
  if (!o.has_stack) ++stats_.without_stack;
  profile_.addSample(s);
}

void OffCpuPairer::onStackSample(int32_t tid, uint64_t time, uint32_t cpu, model::StackId stack,
                                 model::StackEnd end) {
  seen_.insert(tid);
  fresh_.erase(tid);
  if (exited_.count(tid) != 0) return;
  auto it = open_.find(tid);
  if (it != open_.end() && it->second.has_stack) {
    // Its switch-in was lost: the old interval's end is unknown.
    ++stats_.unpaired;
    open_.erase(it);
    it = open_.end();
  }
  Open& o = it != open_.end() ? it->second : open_[tid];
  if (!o.has_switch) {
    o.out_ns = time;
    o.cpu = cpu;
  }
  o.stack = stack;
  o.end = end;
  o.has_stack = true;
}

void OffCpuPairer::onSwitchOut(int32_t tid, uint64_t time, uint32_t cpu, bool preempted) {
  seen_.insert(tid);
  fresh_.erase(tid);
  if (exited_.count(tid) != 0) return;
  auto it = open_.find(tid);
  if (it != open_.end() && it->second.has_switch) {
    ++stats_.unpaired;
    open_.erase(it);
    it = open_.end();
  }
  Open& o = it != open_.end() ? it->second : open_[tid];
  // The SWITCH record is written after the stack sample, at the switch itself.
  o.out_ns = time;
  o.cpu = cpu;
  o.preempted = preempted;
  o.has_switch = true;
}

void OffCpuPairer::onSwitchIn(int32_t tid, uint64_t time) {
  const bool first = seen_.insert(tid).second;
  // A new thread's first switch-in: it was not off CPU before it existed.
  if (fresh_.erase(tid) != 0) return;
  auto it = open_.find(tid);
  if (it != open_.end()) {
    Open o = it->second;
    open_.erase(it);
    close(tid, o, time);
    return;
  }
  if (first) {
    // Off CPU since before the session began: its switch-out was not
    // recorded, so neither was its stack.
    ++stats_.before_start;
    Open o;
    o.out_ns = start_ns_;
    close(tid, o, time);
    return;
  }
  // Running already (or a switch-in twice): its switch-out was lost.
  if (exited_.count(tid) == 0) ++stats_.unpaired;
}

void OffCpuPairer::onRunning(int32_t tid, uint64_t time) {
  seen_.insert(tid);
  fresh_.erase(tid);
  auto it = open_.find(tid);
  if (it == open_.end()) return;
  // Sampled on a CPU while off it: the switch-in was lost. The thread was
  // back by now at the latest.
  ++stats_.unpaired;
  Open o = it->second;
  open_.erase(it);
  close(tid, o, time);
}

void OffCpuPairer::onFork(int32_t tid) {
  // A new thread: not off CPU before it first runs, and not the exited
  // thread that had its id.
  open_.erase(tid);
  exited_.erase(tid);
  seen_.insert(tid);
  fresh_.insert(tid);
}

void OffCpuPairer::onExit(int32_t tid, uint64_t time) {
  seen_.insert(tid);
  fresh_.erase(tid);
  exited_.insert(tid);
  auto it = open_.find(tid);
  if (it == open_.end()) return;
  ++stats_.exited_off_cpu;
  Open o = it->second;
  open_.erase(it);
  close(tid, o, time);
}

void OffCpuPairer::finish(uint64_t end_ns) {
  // In thread order, so a recording's samples do not depend on hashing.
  std::vector<int32_t> tids;
  tids.reserve(open_.size());
  for (const auto& [tid, o] : open_) tids.push_back(tid);
  std::sort(tids.begin(), tids.end());
  for (int32_t tid : tids) {
    ++stats_.open_at_end;
    close(tid, open_[tid], end_ns);
  }
  open_.clear();
}

std::vector<model::Sample> OffCpuPairer::openIntervals(uint64_t now_ns) const {
  std::vector<model::Sample> out;
  out.reserve(open_.size());
  for (const auto& [tid, o] : open_) {
    model::Sample s = sampleOf(tid, o, now_ns);
    if (s.weight > 0) out.push_back(s);
  }
  return out;
}

void OffCpuPairer::liveStacks(std::vector<model::StackId>& out) const {
  for (const auto& [tid, o] : open_) {
    if (o.stack != model::kNone) out.push_back(o.stack);
  }
}

void OffCpuPairer::remapStacks(const std::vector<model::StackId>& map) {
  for (auto& [tid, o] : open_) {
    if (o.stack != model::kNone) o.stack = o.stack < map.size() ? map[o.stack] : model::kNone;
  }
}

}  // namespace strobe::record
