#include "cli/record_args.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "base/duration.hpp"
#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/call_graph.hpp"
#include "cli/exit_codes.hpp"
#include "output/text_report.hpp"
#include "perf/event.hpp"
#include "record/engine.hpp"
#include "record/options.hpp"
#include "record/proc.hpp"

namespace strobe::cli {
namespace {

constexpr uint32_t kMaxFrequency = 10000;
constexpr uint32_t kOverheadWarnFrequency = 5000;
// 256 MiB per CPU with 4 KiB pages; the kernel refuses rings a few times
// larger outright (ENOMEM), and one this size already holds seconds of
// -g dwarf samples.
constexpr uint64_t kMaxMmapPages = 65536;
// perf_event_attr.sample_period: the kernel refuses values with the top bit set.
constexpr uint64_t kMaxCount = INT64_MAX;

// A whole number as typed ("99", not "+99", "9.9" or "0x63"); nullopt
// otherwise. Values above UINT64_MAX saturate (they are out of every range).
std::optional<uint64_t> wholeNumber(const std::string& s) {
  if (s.empty() || s.size() > 40 || s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (char c : s) {
    auto d = static_cast<uint64_t>(c - '0');
    v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
  }
  return v;
}

// Checks `text` (option `name`) is a whole number in [lo, hi]; prints the
// error (with `hint`) and returns nullopt otherwise. "-5" is out of range,
// "abc" is not a number.
std::optional<uint64_t> checkedNumber(const char* name, const std::string& text, uint64_t lo,
                                      uint64_t hi, const std::string& hint) {
  std::optional<uint64_t> v = wholeNumber(text);
  const bool negative = text.size() > 1 && text[0] == '-' && wholeNumber(text.substr(1));
  if (!v && !negative) {
    logError(fmt::format("{} {} is not a whole number", name, text), hint);
    return std::nullopt;
  }
  if (negative || *v < lo || *v > hi) {
    logError(fmt::format("{} {} is out of range", name, text), hint);
    return std::nullopt;
  }
  return v;
}

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

// Edits (insert, delete, replace, swap two neighbours) from a to b.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The long option of `sub` at most two edits from `name` ("--kernal" ->
// "--kernel"), "" when none is that close. Short options are one letter:
// every one would be "near".
std::string nearestOption(const CLI::App* sub, const std::string& name) {
  if (name.rfind("--", 0) != 0 || name.size() < 5) return {};
  std::string best;
  size_t best_d = 3;
  for (const CLI::Option* o : sub->get_options()) {
    for (const std::string& l : o->get_lnames()) {
      size_t d = editDistance(name, "--" + l);
      if (d < best_d) {
        best_d = d;
        best = "--" + l;
      }
    }
  }
  return best;
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
      std::string cmd =
          m.cmdline.empty() ? "[" + terminalSafe(m.comm) + "]" : output::formatCommand(m.cmdline);
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

int unknownOption(const CLI::App* sub, const std::string& arg) {
  std::string name = arg.substr(0, arg.find('='));
  std::string hint = "see 'strobe " + sub->get_name() + " --help'";
  if (std::string near = nearestOption(sub, name); !near.empty()) {
    hint = "did you mean " + near + "? " + hint;
  }
  logError("unknown option '" + name + "'", hint);
  return kExitUsage;
}

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
  sub->add_option("--engine", a.engine,
                  std::string("Capture engine (default: $STROBE_CAPTURE_ENGINE, else ") +
                      kDefaultEngine +
                      "): perf (the kernel's samplers), bpf (strobe's BPF program on one event per "
                      "CPU; root or CAP_BPF+CAP_PERFMON) or auto (bpf where it can record, else "
                      "perf)");
}

int toRecordOptions(const RecordArgs& a, const CommandUsage& u, record::RecordOptions& opt) {
  const auto freq = checkedNumber("-F", a.frequency, 1, kMaxFrequency,
                                  fmt::format("give a rate from 1 to {} Hz", kMaxFrequency));
  if (!freq) return kExitUsage;
  const auto frequency = static_cast<uint32_t>(*freq);
  if (frequency > kOverheadWarnFrequency) {
    logWarning(fmt::format("-F {} samples very often and slows the program noticeably", frequency),
               "99 to 999 Hz is enough for most profiles");
  }
  uint64_t count = 0;
  if (!a.count.empty()) {
    auto c = checkedNumber(
        "-c", a.count, 1, kMaxCount,
        fmt::format("give a count from 1 to {} (one sample every N events)", kMaxCount));
    if (!c) return kExitUsage;
    count = *c;
  }
  const auto pages =
      checkedNumber("--mmap-pages", a.mmap_pages, 1, UINT64_MAX, "use 64, 128, 256, 512, ...");
  if (!pages) return kExitUsage;
  const size_t mmap_pages = *pages;
  auto call_graph = parseCallGraph(a.call_graph);
  if (!call_graph) {
    logError(call_graph.error());
    return kExitUsage;
  }
  if ((mmap_pages & (mmap_pages - 1)) != 0) {
    logError(fmt::format("--mmap-pages {} is not a power of two", mmap_pages),
             "use 64, 128, 256, 512, ...");
    return kExitUsage;
  }
  const auto page_size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (mmap_pages > kMaxMmapPages) {
    logError(fmt::format("--mmap-pages {} is too large: {} MiB of ring per CPU", mmap_pages,
                         mmap_pages * page_size >> 20),
             fmt::format("use at most {} ({} MiB per CPU); 128 to 1024 is usual", kMaxMmapPages,
                         kMaxMmapPages * page_size >> 20));
    return kExitUsage;
  }
  // A ring must hold several sample records (each the stack copy plus ~300
  // bytes) or the kernel drops them all.
  if (call_graph->stack_copy != 0 &&
      mmap_pages * page_size < 4 * (uint64_t{call_graph->stack_copy} + 512)) {
    logError(fmt::format("--mmap-pages {} is too small for a {}-byte stack copy per sample",
                         mmap_pages, call_graph->stack_copy),
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
  if (count != 0 && a.frequency_given) {
    logError("-F and -c both set the sampling rate", "give one: -F HZ or -c N (every N events)");
    return kExitUsage;
  }
  if (auto tc = perf::eventTypeConfig(a.event); !tc) {
    logError(tc.error());
    return kExitUsage;
  }

  opt.command = a.command;
  opt.frequency = frequency;
  opt.callchain = call_graph->callchain;
  opt.stack_copy_bytes = call_graph->stack_copy;
  opt.unwind_auto = call_graph->unwind_auto;
  opt.mmap_pages = mmap_pages;
  opt.event = a.event;
  opt.period = count;
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
  std::string engine = a.engine;
  if (engine.empty()) {
    const char* env = std::getenv("STROBE_CAPTURE_ENGINE");
    engine = env != nullptr && *env != '\0' ? env : kDefaultEngine;
  }
  if (engine == "perf") {
    opt.engine = record::EngineKind::kPerf;
  } else if (engine == "bpf") {
    opt.engine = record::EngineKind::kBpf;
  } else if (engine == "auto") {
    opt.engine = record::EngineKind::kAuto;
  } else {
    logError("unknown engine '" + engine + "'", "use --engine perf, --engine bpf or --engine auto");
    return kExitUsage;
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
  // What the engine cannot do is known before anything starts.
  std::string note;
  auto chosen = record::chooseEngine(opt, note);
  if (!chosen) {
    logError(chosen.error());
    return exitCodeFor(chosen.error());
  }
  if (!note.empty()) logInfo(note);
  opt.engine = (*chosen)->kind;
  return 0;
}

int takeCommand(RecordArgs& a, CLI::App* sub, bool has_dashes,
                const std::vector<std::string>& command, const CommandUsage& u) {
  // prefix_command() hands CLI11's unknown options over as the command;
  // before "--" (or before the first word that is not an option) they are
  // typos, never the start of a command (which cannot begin with '-').
  std::vector<std::string> rest = sub->remaining();
  if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-') {
    return unknownOption(sub, rest.front());
  }
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
