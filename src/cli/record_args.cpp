#include "cli/record_args.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "base/duration.hpp"
#include "base/log.hpp"
#include "cli/call_graph.hpp"
#include "cli/exit_codes.hpp"
#include "output/text_report.hpp"
#include "perf/event.hpp"
#include "record/options.hpp"
#include "record/proc.hpp"

namespace strobe::cli {
namespace {

constexpr uint32_t kMaxFrequency = 10000;
constexpr uint32_t kOverheadWarnFrequency = 5000;

// STROBE_ATTACH_MODE=inherit|per-thread|cpu-filtered forces how an attach
// covers threads (tests); anything else: automatic.
record::AttachMode attachModeFromEnv() {
  const char* v = std::getenv("STROBE_ATTACH_MODE");
  std::string_view s = v != nullptr ? v : "";
  if (s == "inherit") return record::AttachMode::kInherit;
  if (s == "per-thread") return record::AttachMode::kPerThread;
  if (s == "cpu-filtered") return record::AttachMode::kCpuFiltered;
  return record::AttachMode::kAuto;
}

// Resolves -P NAME to one pid; on failure prints the error and returns the exit status.
int resolveName(const std::string& name, std::vector<pid_t>& pids) {
  auto matches = record::findProcessesByName(name, ::getpid());
  if (matches.empty()) {
    logError(fmt::format("no process named '{}'", name),
             "check the name with ps, or give the pid with -p PID");
    return kExitNotFound;
  }
  if (matches.size() > 1) {
    std::string list;
    for (const auto& m : matches) {
      std::string cmd = m.cmdline.empty() ? "[" + m.comm + "]" : output::formatCommand(m.cmdline);
      list += fmt::format("  {} {}\n", m.pid, cmd);
    }
    logError(fmt::format("{} processes match '{}':", matches.size(), name));
    std::fputs(list.c_str(), stderr);
    std::string all;
    for (const auto& m : matches) all += (all.empty() ? "" : ",") + std::to_string(m.pid);
    std::fprintf(stderr, "  hint: choose one with -p PID, or all of them with -p %s\n",
                 all.c_str());
    return kExitAmbiguous;
  }
  pids.push_back(matches.front().pid);
  return 0;
}

}  // namespace

void addSamplingOptions(CLI::App* sub, RecordArgs& a) {
  sub->add_option("-F,--freq", a.frequency, "Samples per second of CPU time, 1..10000")
      ->capture_default_str();
  sub->add_option(
         "-g,--call-graph", a.call_graph,
         "Call stacks: fp (frame pointers), dwarf[,BYTES] (CFI over a stack copy), auto or none")
      ->capture_default_str();
  sub->add_option("--mmap-pages", a.mmap_pages, "Ring buffer pages per CPU, a power of two")
      ->capture_default_str();
  sub->add_option("-p,--pid", a.pids, "Attach to running processes: PID[,PID...]");
  sub->add_option("-P,--process-name", a.process_name,
                  "Attach to the process with this name (comm, then command line)");
  sub->add_option("-d,--duration", a.duration,
                  "Stop after this long: 30s, 5m, 1h30m, 250ms or plain seconds");
  sub->add_option("-e,--event", a.event,
                  "cpu-clock, task-clock, page-faults, context-switches, cycles, instructions, "
                  "cache-misses or branch-misses")
      ->capture_default_str();
  sub->add_option("-c,--count", a.count, "Sample every N events instead of -F");
  sub->add_flag("-k,--kernel", a.kernel, "Also sample kernel code and kernel call stacks");
  sub->add_flag("--no-inherit", a.no_inherit,
                "With a command: do not follow its new threads and child processes");
  sub->add_flag("--off-cpu", a.off_cpu,
                "Also record where threads wait off CPU (blocked or preempted) and for how long");
  sub->add_option("--off-cpu-min", a.off_cpu_min,
                  "With --off-cpu: count off-CPU intervals shorter than this without storing "
                  "them (default 100us; 0 keeps all)");
}

int toRecordOptions(const RecordArgs& a, const CommandUsage& u, record::RecordOptions& opt) {
  if (a.frequency < 1 || a.frequency > kMaxFrequency) {
    logError(fmt::format("-F {} is out of range", a.frequency),
             fmt::format("give a rate from 1 to {} Hz", kMaxFrequency));
    return kExitUsage;
  }
  if (a.frequency > kOverheadWarnFrequency) {
    logWarning(
        fmt::format("-F {} samples very often and slows the program noticeably", a.frequency),
        "99 to 999 Hz is enough for most profiles");
  }
  auto call_graph = parseCallGraph(a.call_graph);
  if (!call_graph) {
    logError(call_graph.error());
    return kExitUsage;
  }
  if (a.mmap_pages == 0 || (a.mmap_pages & (a.mmap_pages - 1)) != 0) {
    logError(fmt::format("--mmap-pages {} is not a power of two", a.mmap_pages),
             "use 64, 128, 256, 512, ...");
    return kExitUsage;
  }
  // A ring must hold several sample records (each the stack copy plus ~300
  // bytes) or the kernel drops them all.
  if (call_graph->stack_copy != 0 && a.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) <
                                         4 * (size_t{call_graph->stack_copy} + 512)) {
    logError(fmt::format("--mmap-pages {} is too small for a {}-byte stack copy per sample",
                         a.mmap_pages, call_graph->stack_copy),
             "use --mmap-pages 128 or more, or a smaller -g dwarf,BYTES");
    return kExitUsage;
  }
  const int targets = (a.command.empty() ? 0 : 1) + (a.pids.empty() ? 0 : 1) +
                      (a.process_name.empty() ? 0 : 1) + (a.all_cpus ? 1 : 0);
  if (targets == 0) {
    logError("nothing to profile", u.usage);
    return kExitUsage;
  }
  if (targets > 1) {
    logError("give only one of: " + u.targets, u.usage);
    return kExitUsage;
  }
  if (a.count != 0 && a.frequency_given) {
    logError("-F and -c both set the sampling rate", "give one: -F HZ or -c N (every N events)");
    return kExitUsage;
  }
  if (auto tc = perf::eventTypeConfig(a.event); !tc) {
    logError(tc.error());
    return kExitUsage;
  }

  opt.command = a.command;
  opt.frequency = a.frequency;
  opt.callchain = call_graph->callchain;
  opt.stack_copy_bytes = call_graph->stack_copy;
  opt.unwind_auto = call_graph->unwind_auto;
  opt.mmap_pages = a.mmap_pages;
  opt.event = a.event;
  opt.period = a.count;
  opt.kernel = a.kernel;
  opt.inherit = !a.no_inherit;
  opt.system_wide = a.all_cpus;
  opt.attach_mode = attachModeFromEnv();
  opt.off_cpu = a.off_cpu;
  if (!a.off_cpu_min.empty()) {
    if (!a.off_cpu) {
      logError("--off-cpu-min applies to off-CPU recording only", "add --off-cpu");
      return kExitUsage;
    }
    auto d = parseDuration(a.off_cpu_min);
    if (!d) {
      logError(d.error());
      return kExitUsage;
    }
    opt.off_cpu_min_ns = *d;
  }
  if (!a.duration.empty()) {
    auto d = record::parseSessionDuration(a.duration);
    if (!d) {
      logError(d.error());
      return kExitUsage;
    }
    opt.duration_ns = *d;
  }
  if (!a.pids.empty()) {
    auto pids = record::parsePidList(a.pids);
    if (!pids) {
      logError(pids.error());
      return kExitUsage;
    }
    opt.pids = *pids;
  }
  if (!a.process_name.empty()) {
    if (int rc = resolveName(a.process_name, opt.pids); rc != 0) return rc;
  }
  return 0;
}

int takeCommand(RecordArgs& a, CLI::App* sub, bool has_dashes,
                const std::vector<std::string>& command, const CommandUsage& u) {
  if (has_dashes) {
    if (!a.command.empty()) {
      logError("unexpected argument '" + a.command.front() + "' before '--'", u.dashes);
      return kExitUsage;
    }
    a.command = command;
  } else {
    for (const std::string& s : sub->remaining()) a.command.push_back(s);
  }
  a.frequency_given = sub->count("-F") > 0;
  return 0;
}

}  // namespace strobe::cli
