// Snapshot: what one refresh of `strobe top` shows, built from the Profile
// recorded so far: a header (target, elapsed time, sampled time, samples per
// second, lost samples, threads) and the hottest rows by function, line,
// module or thread, over every sample so far (cumulative) or only those of
// the last `window_ns` (windowed), counting the samples of one view (cpu,
// off-cpu or wall: model/measure.hpp), with the off-CPU intervals still
// open (threads waiting right now) counted up to the elapsed time.
// Owns: its strings and rows (copies). Thread safety: a pure function over
// a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/aggregate.hpp"
#include "model/profile.hpp"

namespace strobe::tui {

struct SnapshotOptions {
  model::GroupBy by = model::GroupBy::kFunction;  // function, line, module or thread
  uint64_t window_ns = 0;                         // 0: cumulative
  size_t top = 20;                                // rows shown at most
  model::View view = model::View::kAuto;          // which samples count; kAuto: the recording's
};

// What the session knows beyond the Profile.
struct SessionStatus {
  uint64_t elapsed_ns = 0;  // since the session started (the Profile's time origin)
  uint64_t lost = 0;        // samples the kernel dropped so far
  // Off-CPU intervals still open (record::TickInfo::open_off_cpu).
  std::vector<model::Sample> open_off_cpu;
};

struct SnapshotRow {
  double self_pct = 0;   // of the weight in the snapshot's span
  double total_pct = 0;  // the same with callees
  uint64_t samples = 0;  // samples where the row is the leaf (self)
  std::string name;      // function (module+0xOFFSET unresolved), module or "thread (tid)"
  std::string location;  // "file.cpp:LINE", the module when no source, "" for module/thread rows
};

struct Snapshot {
  std::string target;        // what is profiled (a command line, "pid N (cmd)")
  uint64_t elapsed_ns = 0;   // since the session started
  uint64_t window_ns = 0;    // as requested; 0: cumulative
  uint64_t span_ns = 0;      // the time the rows cover: the window, or all elapsed time
  model::Totals totals;      // samples, weight and threads within the span
  double samples_per_s = 0;  // samples within the span per second of it
  uint64_t lost = 0;
  std::string unit;         // what weights count: "ns" (time) or the event's unit
  std::string label;        // what the time is: "CPU", "off-CPU", "wall" (model::Measure::label)
  uint64_t cpu_ns = 0;      // wall view with off-CPU time: its CPU part
  uint64_t off_cpu_ns = 0;  // and its off-CPU part
  model::GroupBy by = model::GroupBy::kFunction;
  std::vector<SnapshotRow> rows;  // hottest first (by self, then total)
  size_t hidden_rows = 0;         // rows beyond opt.top
};

// The samples of `p` in [elapsed - window, elapsed] (all of them for a
// cumulative view); an off-CPU interval that began before the window
// counts from the window's start.
std::vector<model::Sample> samplesInWindow(const model::Profile& p, uint64_t elapsed_ns,
                                           uint64_t window_ns);

Snapshot buildSnapshot(const model::Profile& p, const SnapshotOptions& opt,
                       const SessionStatus& status);

// The groupings top shows: "function", "line", "module", "thread" (false
// for anything else, model::parseGroupBy's "file" and "process" included).
bool parseGroupBy(std::string_view name, model::GroupBy& by);

}  // namespace strobe::tui
