// Time kinds and views: the one place that decides what a profile's weights
// measure and how every report names them (DESIGN.md §7, "Time kinds").
// A sample says what its weight measures (Sample::kind); a view picks the
// kinds a report adds up, and only `wall` adds two kinds:
//
//   view     samples                 pprof type/unit       label
//   cpu      kCpu                    cpu/nanoseconds       CPU
//   off-cpu  kOffCpu                 off-cpu/nanoseconds   off-CPU
//   wall     kCpu + kOffCpu, kWall   wall/nanoseconds      wall
//   events   kCount                  EVENT/count           EVENT (page-faults, ...)
//
// Writers never assume nanoseconds of CPU: they ask measureOf(profile).
// Thread safety: pure functions. No I/O.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::model {

// "cpu", "off-cpu", "wall", "events" ("auto" for kAuto).
std::string_view viewName(View v);
// The --view values: "cpu", "off-cpu", "wall"; nullopt for anything else.
std::optional<View> parseView(std::string_view name);

// What the samples of a recording of `event` measure: cpu-clock, task-clock
// (and "", a recording older than the event name) -> kCpu; "wall-clock"
// (libstrobe's wall mode) -> kWall; every other event -> kCount.
SampleKind kindOfEvent(std::string_view event);

// Whether view `v` adds samples of kind `k`.
bool inView(View v, SampleKind k);

// The view a report shows when none is asked for: wall for a recording
// with off-CPU time (Meta::off_cpu or a kOffCpu sample), else the view of
// its samples' kind (cpu, wall for libstrobe's wall mode, events).
View defaultView(const Profile& p);
// p.view(), or defaultView(p) when it is kAuto.
View viewOf(const Profile& p);

// Whether `p` can be shown in view `v`: a kUsage error with a hint when it
// has no such samples (--view off-cpu of a recording made without
// --off-cpu, --view cpu of a page-faults recording, ...).
Status checkView(const Profile& p, View v);

struct Measure {
  View view = View::kCpu;
  std::string type;        // pprof's sample type: "cpu", "off-cpu", "wall" or the event
  std::string unit;        // pprof's unit: "nanoseconds" or "count"
  std::string label;       // for people: "CPU", "off-CPU", "wall" or the event
  std::string count_unit;  // counts: what one counts ("faults", "switches"); "" for time
  bool time() const { return unit == "nanoseconds"; }
};
// How view `v` of a recording of `event` is named.
Measure measureOf(View v, std::string_view event);
// measureOf(viewOf(p), p.meta().event).
Measure measureOf(const Profile& p);

// "sleep", "I/O", "lock", "runnable, waiting for a CPU", "other", "unknown".
std::string_view reasonName(OffCpuReason r);

// CPU and off-CPU time side by side (record --off-cpu headers): sums of
// kCpu and kOffCpu weights, the off-CPU part split by reason.
struct TimeSplit {
  uint64_t cpu_ns = 0;
  uint64_t off_cpu_ns = 0;
  uint64_t cpu_samples = 0;
  uint64_t off_cpu_samples = 0;
  std::array<uint64_t, kMaxOffCpuReason + 1> by_reason{};  // ns, indexed by OffCpuReason
  uint64_t wallNs() const { return cpu_ns + off_cpu_ns; }
  // Off CPU while blocked (everything but kPreempted).
  uint64_t blockedNs() const {
    return off_cpu_ns - by_reason[static_cast<size_t>(OffCpuReason::kPreempted)];
  }
};
TimeSplit timeSplit(std::span<const Sample> samples);
// One split per thread with samples, the most wall time first (then tid).
std::vector<std::pair<int32_t, TimeSplit>> timeSplitByThread(std::span<const Sample> samples);

}  // namespace strobe::model
