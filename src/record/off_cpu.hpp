// OffCpuPairer: turns the off-CPU event's records into off-CPU samples
// (record --off-cpu). A thread leaves its CPU at a switch-out (the
// context-switch event's sample gives its stack there, the SWITCH record
// whether it was still runnable) and comes back at its next switch-in,
// possibly on another CPU; the time between is one interval, stored as a
// SampleKind::kOffCpu sample: time = the switch-out, weight = the time off
// CPU, stack = where it left.
//
// Records must arrive in time order across CPUs (EventQueue merges the
// rings); ties are fine. The pairing is by thread id:
//   - the stack sample and the SWITCH_OUT record of one switch may come in
//     either order; each completes the interval the other opened;
//   - a switch-in closes the thread's open interval;
//   - a switch-in of a thread never seen before (one that was off CPU when
//     the session began) opens its interval at the session start, with an
//     empty stack (its switch-out was not recorded);
//   - a thread that exits while an interval is open ends it at the exit,
//     and switch-outs after its EXIT (the dead task's last switch) are
//     ignored; a FORK forgets everything about a reused thread id;
//   - a CPU sample of a thread, or a second switch-out, while its interval
//     is open means the switch-in was lost: the interval ends there (the
//     CPU sample) or is dropped (a second switch-out), and is counted as
//     unpaired;
//   - finish() ends every open interval at the session's end.
// Every interval is clipped to [start, end] of the session: never negative,
// never unbounded. Intervals shorter than min_ns are counted (short_count,
// short_ns), not stored. Why a thread blocked is decided later, from the
// symbolized stack (wait_reason.hpp); preemption is known here, from the
// SWITCH record.
//
// Thread safety: none; owned by the converter.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/profile.hpp"

namespace strobe::record {

struct OffCpuStats {
  uint64_t intervals = 0;       // stored as off-CPU samples
  uint64_t short_count = 0;     // shorter than min_ns: counted, not stored
  uint64_t short_ns = 0;        // their total time
  uint64_t unpaired = 0;        // a switch whose other half was lost
  uint64_t before_start = 0;    // intervals opened at the session start (stack unknown)
  uint64_t open_at_end = 0;     // intervals closed by finish()
  uint64_t exited_off_cpu = 0;  // intervals ended by the thread's exit
  uint64_t without_stack = 0;   // switch-outs whose stack sample was lost
};

class OffCpuPairer {
 public:
  // Times are CLOCK_MONOTONIC ns as the records carry them; samples are
  // stored relative to start_ns (Meta::start_monotonic_ns).
  OffCpuPairer(model::Profile& profile, uint64_t start_ns, uint64_t min_ns);

  // The context-switch event's sample: the stack where `tid` left the CPU.
  void onStackSample(int32_t tid, uint64_t time, uint32_t cpu, model::StackId stack,
                     model::StackEnd end);
  // PERF_RECORD_SWITCH(_CPU_WIDE) with the out flag.
  void onSwitchOut(int32_t tid, uint64_t time, uint32_t cpu, bool preempted);
  // PERF_RECORD_SWITCH(_CPU_WIDE) without it.
  void onSwitchIn(int32_t tid, uint64_t time);
  // A CPU sample of `tid` at `time`: it was running.
  void onRunning(int32_t tid, uint64_t time);
  void onFork(int32_t tid);
  void onExit(int32_t tid, uint64_t time);
  // Ends every open interval at end_ns (the session's end).
  void finish(uint64_t end_ns);

  // The open intervals as samples clipped at now_ns (a live view's tick),
  // not stored.
  std::vector<model::Sample> openIntervals(uint64_t now_ns) const;

  const OffCpuStats& stats() const { return stats_; }

  // The stacks of the open intervals, and their renumbering after a
  // compaction (model/compact.hpp; a dropped one becomes an empty stack).
  void liveStacks(std::vector<model::StackId>& out) const;
  void remapStacks(const std::vector<model::StackId>& map);

 private:
  struct Open {
    uint64_t out_ns = 0;
    uint32_t cpu = 0;
    model::StackId stack = model::kNone;
    model::StackEnd end = model::StackEnd::kNotJudged;
    bool has_stack = false;
    bool has_switch = false;
    bool preempted = false;
  };
  void close(int32_t tid, const Open& o, uint64_t end_ns);
  model::Sample sampleOf(int32_t tid, const Open& o, uint64_t end_ns) const;

  model::Profile& profile_;
  uint64_t start_ns_;
  uint64_t min_ns_;
  std::unordered_map<int32_t, Open> open_;
  std::unordered_set<int32_t> seen_;    // threads with any record this session
  std::unordered_set<int32_t> exited_;  // threads whose EXIT was seen
  std::unordered_set<int32_t> fresh_;   // created (FORK) and not seen running yet
  OffCpuStats stats_;
};

}  // namespace strobe::record
