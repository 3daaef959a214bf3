// strobe record [-F HZ | -c N] [-e EVENT] [-g fp|dwarf[,BYTES]|auto|none] [-k] [-d DUR]
//               [-o FILE] [--mmap-pages N] [--no-inherit]
//               (-- CMD ARGS | -p PID,... | -P NAME | -a)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/log.hpp"
#include "cli/call_graph.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "model/aggregate.hpp"
#include "output/stack_completeness.hpp"
#include "output/text_report.hpp"
#include "output/unsampled_threads.hpp"
#include "perf/event.hpp"
#include "record/options.hpp"
#include "record/proc.hpp"
#include "record/session.hpp"
#include "store/store.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::cli {
namespace {

constexpr uint32_t kMaxFrequency = 10000;
constexpr uint32_t kOverheadWarnFrequency = 5000;
constexpr double kLostWarnShare = 0.01;

struct RecordArgs {
  uint32_t frequency = 99;
  std::string call_graph = "fp";
  std::string output = "strobe.db";
  size_t mmap_pages = 128;
  std::vector<std::string> command;
  std::string pids;          // -p
  std::string process_name;  // -P
  bool all_cpus = false;     // -a
  std::string duration;      // -d
  std::string event = "cpu-clock";
  uint64_t count = 0;   // -c
  bool kernel = false;  // -k
  bool no_inherit = false;
  bool frequency_given = false;
};

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

bool fileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Moves an existing recording aside to FILE.old; returns whether it did.
bool keepOld(const std::string& path) {
  if (!fileExists(path)) return false;
  std::string old = path + ".old";
  if (::rename(path.c_str(), old.c_str()) != 0) {
    logWarning(fmt::format("cannot keep the previous recording as {}", old));
    return false;
  }
  return true;
}

void printSummary(const model::Profile& p, const record::RecordOutcome& out,
                  const std::string& path) {
  const model::Meta& m = p.meta();
  const model::Totals t = model::totals(p);
  double cpu_s = static_cast<double>(t.weight) / 1e9;
  double rate = cpu_s > 0 ? static_cast<double>(t.samples) / cpu_s : 0.0;
  std::FILE* err = stderr;
  if (model::isTimeEvent(m.event)) {
    fmt::print(err,
               "strobe: recorded {} ({}), {} threads, {} samples, {:.0f} samples per CPU-second, "
               "{} lost\n",
               output::formatTarget(m), output::formatDuration(m.duration_ns), t.threads, t.samples,
               rate, out.stats.lost);
  } else {
    fmt::print(err, "strobe: recorded {} ({}), {} threads, {} samples of {} ({} {}), {} lost\n",
               output::formatTarget(m), output::formatDuration(m.duration_ns), t.threads, t.samples,
               m.event, t.weight, model::eventUnit(m.event), out.stats.lost);
  }
  // Lost samples are counted per ring: one slow ring is worth a warning even
  // when the others were drained in time.
  auto share = [](uint64_t lost, uint64_t got) {
    return lost + got == 0 ? 0.0 : static_cast<double>(lost) / static_cast<double>(lost + got);
  };
  double lost_share = share(out.stats.lost, t.samples);
  double worst = 0;
  for (const auto& r : out.rings) worst = std::max(worst, share(r.lost, r.samples));
  if (lost_share > kLostWarnShare || worst > kLostWarnShare) {
    // The rate named is the overall one, or the worst ring's when only one ring fell behind.
    logWarning(fmt::format("{:.1f}% of samples were lost: strobe did not drain the ring in time",
                           100.0 * (lost_share > kLostWarnShare ? lost_share : worst)),
               "lower the rate (-F) or enlarge the ring (--mmap-pages, e.g. 512)");
  }
  if (out.stats.throttled > 0) {
    logWarning(fmt::format("the kernel throttled sampling {} times", out.stats.throttled),
               "lower -F below kernel.perf_event_max_sample_rate");
  }
  if (std::string s = output::stackCompletenessLine(p); !s.empty()) {
    fmt::print(err, "strobe: stacks: {}\n", s);
  }
  // Threads too short to be sampled: a warning once they matter (1% of
  // what was sampled), always a line in the report.
  if (std::string s = output::unsampledThreadsLine(m);
      !s.empty() && m.unsampled_count * 100 > t.weight) {
    logWarning(s, "raise -F (e.g. -F 999) to sample short-lived threads");
  }
  fmt::print(err, "strobe: wrote {}; top functions:\n", path);
  output::TextOptions opt;
  opt.top = 10;
  output::writeTopTable(p, opt, err);
}

int runRecordChecked(RecordArgs& a) {
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
    logError("nothing to profile",
             "usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a");
    return kExitUsage;
  }
  if (targets > 1) {
    logError("give only one of: a command, -p PID, -P NAME, -a",
             "usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a");
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

  record::RecordOptions opt;
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
  if (!a.duration.empty()) {
    auto d = record::parseDuration(a.duration);
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

  model::Profile profile;
  auto outcome = record::record(opt, profile);
  if (!outcome) {
    logError(outcome.error());
    return exitCodeFor(outcome.error());
  }

  if (std::getenv("STROBE_DEBUG") != nullptr && !opt.pids.empty()) {
    std::fprintf(stderr, "strobe: debug: attach mode %s, %zu events opened\n",
                 record::attachModeName(outcome->attach_mode), outcome->events_opened);
  }

  for (const std::string& w : outcome->warnings) logWarning(w);

  symbolize::SymbolizerOptions sym_options;
  const record::KeptFiles* kept = outcome->kept_files.get();
  sym_options.kept_copy = [kept](const std::string& path, const std::string& build_id) {
    return kept != nullptr ? kept->pathFor(path, build_id) : std::string();
  };
  // STROBE_TIMINGS=1: the symbolization phase's CPU (all threads) and wall
  // time on stderr, for bench/many_modules.
  bool timings = std::getenv("STROBE_TIMINGS") != nullptr;
  struct rusage ru0 {};
  if (timings) ::getrusage(RUSAGE_SELF, &ru0);
  auto wall0 = std::chrono::steady_clock::now();
  symbolize::Symbolizer symbolizer(std::move(sym_options));
  if (auto st = symbolizer.symbolize(profile); !st) logWarning(st.error().describe());
  for (const std::string& w : symbolizer.warnings()) logWarning(w);
  if (timings) {
    struct rusage ru1 {};
    ::getrusage(RUSAGE_SELF, &ru1);
    auto us = [](const timeval& a, const timeval& b) {
      return (b.tv_sec - a.tv_sec) * 1000000.0 + static_cast<double>(b.tv_usec - a.tv_usec);
    };
    double cpu_ms = (us(ru0.ru_utime, ru1.ru_utime) + us(ru0.ru_stime, ru1.ru_stime)) / 1000.0;
    double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
    fmt::print(stderr,
               "strobe: timings: symbolization of {} locations in {} modules: {:.1f} ms CPU, "
               "{:.1f} ms wall\n",
               profile.locations().size(), profile.modules().size(), cpu_ms, wall_ms);
  }

  bool moved = keepOld(a.output);
  if (auto st = store::writeProfile(profile, a.output); !st) {
    logError(st.error());
    if (moved) ::rename((a.output + ".old").c_str(), a.output.c_str());
    return outcome->exit_status != 0 ? outcome->exit_status : kExitError;
  }
  printSummary(profile, *outcome, a.output);
  return outcome->exit_status;
}

// STROBE_DEBUG=1: report strobe's open descriptors before and after the
// whole record (tests check that none leak).
int runRecord(RecordArgs& a) {
  const bool debug = std::getenv("STROBE_DEBUG") != nullptr;
  const int before = debug ? record::countOpenFds() : 0;
  int rc = runRecordChecked(a);
  if (debug) {
    std::fprintf(stderr, "strobe: debug: open descriptors: %d at start, %d at end\n", before,
                 record::countOpenFds());
  }
  return rc;
}

}  // namespace

Runner addRecordCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* sub = app.add_subcommand("record", "Run a command and sample where it spends CPU time");
  sub->add_option("-F,--freq", args->frequency, "Samples per second of CPU time, 1..10000")
      ->capture_default_str();
  sub->add_option(
         "-g,--call-graph", args->call_graph,
         "Call stacks: fp (frame pointers), dwarf[,BYTES] (CFI over a stack copy), auto or none")
      ->capture_default_str();
  sub->add_option("-o,--output", args->output,
                  "Recording to write (an existing one is kept as FILE.old)")
      ->capture_default_str();
  sub->add_option("--mmap-pages", args->mmap_pages, "Ring buffer pages per CPU, a power of two")
      ->capture_default_str();
  sub->add_option("-p,--pid", args->pids, "Attach to running processes: PID[,PID...]");
  sub->add_option("-P,--process-name", args->process_name,
                  "Attach to the process with this name (comm, then command line)");
  sub->add_flag("-a,--all-cpus", args->all_cpus, "Sample every process on every CPU");
  sub->add_option("-d,--duration", args->duration,
                  "Stop after this long: 30s, 5m, 1h30m, 250ms or plain seconds");
  sub->add_option("-e,--event", args->event,
                  "cpu-clock, task-clock, page-faults, context-switches, cycles, instructions, "
                  "cache-misses or branch-misses")
      ->capture_default_str();
  sub->add_option("-c,--count", args->count, "Sample every N events instead of -F");
  sub->add_flag("-k,--kernel", args->kernel, "Also sample kernel code and kernel call stacks");
  sub->add_flag("--no-inherit", args->no_inherit,
                "With a command: do not follow its new threads and child processes");
  sub->add_option("command", args->command, "The command to profile and its arguments");
  sub->prefix_command();  // everything from the command on belongs to it
  sub->footer(std::string("Examples: strobe record -F 999 -- ./server --port 8080\n"
                          "          strobe record -p 1234 -d 30s\n"
                          "Environment: DEBUGINFOD_URLS (fetch missing debug files from these\n"
                          "debuginfod servers; off when unset), STROBE_TIMINGS=1 (print the\n"
                          "symbolization phase's CPU and wall time).\n") +
              kExitCodesHelp);
  return [args, sub, has_dashes, command] {
    if (has_dashes) {
      if (!args->command.empty()) {
        logError("unexpected argument '" + args->command.front() + "' before '--'",
                 "usage: strobe record [OPTIONS] -- CMD [ARGS]");
        return kExitUsage;
      }
      args->command = command;
    } else {
      for (const std::string& s : sub->remaining()) args->command.push_back(s);
    }
    args->frequency_given = sub->count("-F") > 0;
    return runRecord(*args);
  };
}

}  // namespace strobe::cli
