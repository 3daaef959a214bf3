#include "model/measure.hpp"

#include <algorithm>
#include <map>

#include "model/aggregate.hpp"

namespace strobe::model {
namespace {

// Bit k set: the profile has a sample of kind k.
unsigned kindsPresent(const Profile& p) {
  unsigned bits = 0;
  for (const Sample& s : p.samples()) {
    bits |= 1u << static_cast<unsigned>(s.kind);
    if (bits == 0xF) break;
  }
  return bits;
}

bool has(unsigned bits, SampleKind k) {
  return (bits & (1u << static_cast<unsigned>(k))) != 0;
}

}  // namespace

std::string_view viewName(View v) {
  switch (v) {
    case View::kCpu:
      return "cpu";
    case View::kOffCpu:
      return "off-cpu";
    case View::kWall:
      return "wall";
    case View::kEvents:
      return "events";
    case View::kAuto:
      break;
  }
  return "auto";
}

std::optional<View> parseView(std::string_view name) {
  if (name == "cpu") return View::kCpu;
  if (name == "off-cpu") return View::kOffCpu;
  if (name == "wall") return View::kWall;
  return std::nullopt;
}

SampleKind kindOfEvent(std::string_view event) {
  if (event.empty() || event == "cpu-clock" || event == "task-clock") return SampleKind::kCpu;
  if (event == "wall-clock") return SampleKind::kWall;
  return SampleKind::kCount;
}

bool inView(View v, SampleKind k) {
  switch (v) {
    case View::kCpu:
      return k == SampleKind::kCpu;
    case View::kOffCpu:
      return k == SampleKind::kOffCpu;
    case View::kWall:
      return k == SampleKind::kCpu || k == SampleKind::kOffCpu || k == SampleKind::kWall;
    case View::kEvents:
      return k == SampleKind::kCount;
    case View::kAuto:
      break;
  }
  return true;
}

View defaultView(const Profile& p) {
  const unsigned bits = kindsPresent(p);
  if (p.meta().off_cpu != 0 || has(bits, SampleKind::kOffCpu)) return View::kWall;
  SampleKind k = kindOfEvent(p.meta().event);
  if (!p.samples().empty()) k = p.samples().front().kind;
  switch (k) {
    case SampleKind::kWall:
      return View::kWall;
    case SampleKind::kCount:
      return View::kEvents;
    case SampleKind::kCpu:
    case SampleKind::kOffCpu:
      break;
  }
  return View::kCpu;
}

View viewOf(const Profile& p) {
  return p.view() != View::kAuto ? p.view() : defaultView(p);
}

Status checkView(const Profile& p, View v) {
  if (v == View::kAuto) return {};
  const unsigned bits = kindsPresent(p);
  const SampleKind primary = kindOfEvent(p.meta().event);
  const bool off_cpu = p.meta().off_cpu != 0 || has(bits, SampleKind::kOffCpu);
  if (primary == SampleKind::kCount || has(bits, SampleKind::kCount)) {
    if (v == View::kEvents) return {};
    return makeError("this recording counts " + p.meta().event + ", not time: --view " +
                         std::string(viewName(v)) + " does not apply",
                     "omit --view", ErrorKind::kUsage);
  }
  if (primary == SampleKind::kWall || has(bits, SampleKind::kWall)) {
    if (v == View::kWall) return {};
    return makeError(
        "this recording sampled wall-clock time (libstrobe's wall mode), so it has "
        "no separate " +
            std::string(v == View::kCpu ? "CPU" : "off-CPU") + " time",
        "use --view wall, or omit --view", ErrorKind::kUsage);
  }
  if ((v == View::kOffCpu || v == View::kWall) && !off_cpu) {
    return makeError("--view " + std::string(viewName(v)) +
                         " needs off-CPU time, and this recording has none (it was made "
                         "without --off-cpu)",
                     "record with: strobe record --off-cpu ..., or use --view cpu",
                     ErrorKind::kUsage);
  }
  if (v == View::kEvents) {
    return makeError("this recording measured time, not a count of events",
                     "use --view cpu, off-cpu or wall", ErrorKind::kUsage);
  }
  return {};
}

Measure measureOf(View v, std::string_view event) {
  Measure m;
  m.view = v == View::kAuto ? View::kCpu : v;
  switch (m.view) {
    case View::kOffCpu:
      m.type = "off-cpu";
      m.label = "off-CPU";
      break;
    case View::kWall:
      m.type = "wall";
      m.label = "wall";
      break;
    case View::kEvents:
      m.type = event.empty() ? std::string("events") : std::string(event);
      m.label = m.type;
      m.unit = "count";
      m.count_unit = std::string(eventUnit(event));
      return m;
    case View::kCpu:
    case View::kAuto:
      m.type = "cpu";
      m.label = "CPU";
      break;
  }
  m.unit = "nanoseconds";
  return m;
}

Measure measureOf(const Profile& p) {
  return measureOf(viewOf(p), p.meta().event);
}

std::string_view reasonName(OffCpuReason r) {
  switch (r) {
    case OffCpuReason::kSleep:
      return "sleep";
    case OffCpuReason::kIo:
      return "I/O";
    case OffCpuReason::kLock:
      return "lock";
    case OffCpuReason::kPreempted:
      return "runnable, waiting for a CPU";
    case OffCpuReason::kOther:
      return "other";
    case OffCpuReason::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

void add(TimeSplit& t, const Sample& s) {
  if (s.kind == SampleKind::kOffCpu) {
    t.off_cpu_ns += s.weight;
    ++t.off_cpu_samples;
    const auto r = static_cast<size_t>(s.off_cpu_reason);
    if (r < t.by_reason.size()) t.by_reason[r] += s.weight;
  } else if (s.kind == SampleKind::kCpu) {
    t.cpu_ns += s.weight;
    ++t.cpu_samples;
  }
}

}  // namespace

TimeSplit timeSplit(std::span<const Sample> samples) {
  TimeSplit t;
  for (const Sample& s : samples) add(t, s);
  return t;
}

std::vector<std::pair<int32_t, TimeSplit>> timeSplitByThread(std::span<const Sample> samples) {
  std::map<int32_t, TimeSplit> per;
  for (const Sample& s : samples) add(per[s.tid], s);
  std::vector<std::pair<int32_t, TimeSplit>> out(per.begin(), per.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second.wallNs() > b.second.wallNs();
  });
  return out;
}

}  // namespace strobe::model
