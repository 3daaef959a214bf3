#include "import/perf_meta.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "perf/event.hpp"

namespace strobe::import {
namespace {

// perf record's options that take their value as the next argument (when
// not written "--opt=VALUE" or "-FVALUE"), tools/perf/builtin-record.c.
constexpr std::string_view kWithValue[] = {"-e",
                                           "--event",
                                           "-F",
                                           "--freq",
                                           "-c",
                                           "--count",
                                           "-o",
                                           "--output",
                                           "-p",
                                           "--pid",
                                           "-t",
                                           "--tid",
                                           "-C",
                                           "--cpu",
                                           "-m",
                                           "--mmap-pages",
                                           "-G",
                                           "--cgroup",
                                           "-u",
                                           "--uid",
                                           "-r",
                                           "--realtime",
                                           "-k",
                                           "--clockid",
                                           "-D",
                                           "--delay",
                                           "--call-graph",
                                           "-j",
                                           "--branch-filter",
                                           "--user-regs",
                                           "--intr-regs",
                                           "--filter",
                                           "--switch-output",
                                           "--switch-max-files",
                                           "--affinity",
                                           "--max-size",
                                           "--control",
                                           "--proc-map-timeout"};

// "-F 999" (the value next), not "-F999" or "--freq=999".
bool takesValue(std::string_view arg) {
  return std::find(std::begin(kWithValue), std::end(kWithValue), arg) != std::end(kWithValue);
}

}  // namespace

PerfTarget perfTarget(const std::vector<std::string>& cmdline) {
  PerfTarget t;
  size_t i = 1;  // after perf's own path
  if (i < cmdline.size() && cmdline[i] == "record") ++i;
  std::string pids;
  for (; i < cmdline.size(); ++i) {
    const std::string& a = cmdline[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    if (a == "-a" || a == "--all-cpus" || a == "-C" || a.rfind("--cpu=", 0) == 0 ||
        (a.size() > 2 && a.rfind("-C", 0) == 0)) {
      t.target = "system";
    }
    const bool pid_opt = a == "-p" || a == "--pid" || a == "-t" || a == "--tid";
    if (pid_opt && i + 1 < cmdline.size()) pids = cmdline[i + 1];
    if (a.rfind("--pid=", 0) == 0 || a.rfind("--tid=", 0) == 0) pids = a.substr(6);
    if (takesValue(a)) ++i;
  }
  if (!pids.empty()) t.target = "pid " + pids;
  t.command.assign(cmdline.begin() + static_cast<std::ptrdiff_t>(std::min(i, cmdline.size())),
                   cmdline.end());
  if (t.target != "command") t.command.clear();
  return t;
}

std::string strobeEventName(const perfdata::EventList& events, size_t index) {
  const perf_event_attr& a = events.events()[index].attr;
  std::string known = perf::eventName(a.type, a.config);
  if (perf::eventTypeConfig(known).ok()) return known;
  return events.displayName(index);
}

uint64_t startRealtime(const perfdata::Features& f, uint64_t first, uint64_t duration_ns,
                       uint64_t file_mtime_ns) {
  if (f.has_clock_data && f.clock_ns != 0 && f.wall_clock_ns >= f.clock_ns) {
    return f.wall_clock_ns - f.clock_ns + first;
  }
  return file_mtime_ns - std::min(file_mtime_ns, duration_ns);
}

void fillMeta(const perfdata::Features& f, const perfdata::EventList& events, size_t index,
              model::Meta& m) {
  const perf_event_attr& a = events.events()[index].attr;
  m.event = strobeEventName(events, index);
  m.frequency = a.freq != 0 ? static_cast<uint32_t>(a.sample_freq) : 0;
  m.sample_period = a.freq != 0 ? 0 : a.sample_period;
  const bool dwarf =
      (a.sample_type & PERF_SAMPLE_STACK_USER) != 0 && (a.sample_type & PERF_SAMPLE_REGS_USER) != 0;
  m.call_graph = dwarf ? "dwarf" : (a.sample_type & PERF_SAMPLE_CALLCHAIN) != 0 ? "fp" : "none";
  m.stack_copy_bytes = dwarf ? a.sample_stack_user : 0;
  m.kernel_time = a.exclude_kernel == 0 ? 1 : 0;
  m.hostname = f.hostname;
  m.kernel = f.os_release;
  m.cpu = f.cpu_desc;
  m.strobe_version = STROBE_VERSION;
  const PerfTarget t = perfTarget(f.cmdline);
  m.command = t.command;
  m.target = t.target;
  std::string line;
  for (size_t i = 0; i < f.cmdline.size(); ++i) {
    // perf's own path as its name, as a shell would show it.
    std::string arg = f.cmdline[i];
    if (i == 0 && arg.rfind('/') != std::string::npos) arg = arg.substr(arg.rfind('/') + 1);
    line += (i == 0 ? "" : " ") + arg;
  }
  m.source = "perf.data";
  if (!f.perf_version.empty()) m.source += " (perf " + f.perf_version + ")";
  if (!line.empty()) m.source += ": " + line;
}

}  // namespace strobe::import
