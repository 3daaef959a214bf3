// strobe record [-F HZ | -c N] [-e EVENT] [-g fp|dwarf[,BYTES]|auto|none] [-k] [-d DUR]
//               [-o FILE] [--mmap-pages N] [--no-inherit] [--off-cpu [--off-cpu-min DUR]]
//               (-- CMD ARGS | -p PID,... | -P NAME | -a)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/record_args.hpp"
#include "cli/record_output.hpp"
#include "model/aggregate.hpp"
#include "model/measure.hpp"
#include "output/span_table.hpp"
#include "output/stack_completeness.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"
#include "output/unsampled_threads.hpp"
#include "perf/event.hpp"
#include "record/engine.hpp"
#include "record/proc.hpp"
#include "record/session.hpp"
#include "record/wait_reason.hpp"
#include "store/store.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::cli {
namespace {

constexpr double kLostWarnShare = 0.01;

const CommandUsage kRecordUsage{
    "a command, -p PID, -P NAME, -a",
    "usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a",
    "usage: strobe record [OPTIONS] -- CMD [ARGS]"};

void printSummary(const model::Profile& p, const record::RecordOutcome& out,
                  const std::string& path) {
  const model::Meta& m = p.meta();
  const model::Totals t = model::totals(p);
  const model::TimeSplit split = model::timeSplit(std::span<const model::Sample>(p.samples()));
  double cpu_s = static_cast<double>(split.cpu_ns) / 1e9;
  double rate = cpu_s > 0 ? static_cast<double>(split.cpu_samples) / cpu_s : 0.0;
  std::FILE* err = stderr;
  const std::string threads = t.threads == 1 ? "1 thread" : fmt::format("{} threads", t.threads);
  if (m.off_cpu != 0) {
    fmt::print(err,
               "strobe: recorded {} ({}), {}, {} samples, {:.0f} samples per CPU-second, "
               "{} lost; {} off-CPU intervals\n",
               output::formatTarget(m), output::formatDuration(m.duration_ns), threads,
               split.cpu_samples, rate, out.stats.lost, split.off_cpu_samples);
    // The header's time and off-CPU lines, without its per-thread table,
    // each as "strobe: LABEL: TEXT".
    std::string header = output::offCpuHeader(p, 0);
    header = header.substr(0, header.find("  THREAD"));
    std::string label;
    for (size_t at = 0; at < header.size();) {
      size_t nl = header.find('\n', at);
      std::string line = header.substr(at, nl == std::string::npos ? nl : nl - at);
      at = nl == std::string::npos ? header.size() : nl + 1;
      size_t colon = line.find(':');
      if (line.front() != ' ' && colon != std::string::npos) {
        label = line.substr(0, colon);
        line = line.substr(colon + 1);
      }
      fmt::print(err, "strobe: {}: {}\n", label, line.substr(line.find_first_not_of(' ')));
    }
    const uint64_t switches = out.stats.switch_samples + out.stats.switch_lost;
    if (switches != 0 && out.stats.switch_lost * 100 > switches) {
      logWarning(fmt::format("{:.1f}% of context-switch records were lost: off-CPU time is "
                             "missing for those switches",
                             100.0 * static_cast<double>(out.stats.switch_lost) /
                                 static_cast<double>(switches)),
                 "enlarge the ring (--mmap-pages 512 or more)");
    }
  } else if (model::isTimeEvent(m.event)) {
    fmt::print(err,
               "strobe: recorded {} ({}), {}, {} samples, CPU sampled {}, {:.0f} samples per "
               "CPU-second, {} lost\n",
               output::formatTarget(m), output::formatDuration(m.duration_ns), threads, t.samples,
               output::sampledCpuText(p), rate, out.stats.lost);
  } else {
    fmt::print(err, "strobe: recorded {} ({}), {}, {} samples of {} ({} {}), {} lost\n",
               output::formatTarget(m), output::formatDuration(m.duration_ns), threads, t.samples,
               m.event, t.weight, model::eventUnit(m.event), out.stats.lost);
  }
  // A command that failed at once, or ran too briefly for a sample, is said
  // to have done so: "0 samples" alone would hide it.
  if (m.target == "command" && out.command_ns != 0 && (t.samples == 0 || m.exit_status != 0)) {
    std::string what = fmt::format("the command exited with status {} after {}", m.exit_status,
                                   output::formatDuration(out.command_ns));
    if (t.samples != 0) {
      fmt::print(err, "strobe: {}\n", what);
    } else if (m.frequency != 0 && model::isTimeEvent(m.event) &&
               m.target_cpu_ns < 1'000'000'000ULL / m.frequency) {
      fmt::print(err,
                 "strobe: no sample was taken: {}, less than one sampling period ({} of CPU at "
                 "{} Hz)\n",
                 what, output::formatDuration(1'000'000'000ULL / m.frequency), m.frequency);
    } else {
      fmt::print(err, "strobe: no sample was taken: {}\n", what);
    }
  }
  if (std::string s = output::kernelTimeLine(m); !s.empty()) {
    logWarning(s, output::kKernelTimeHint);
  }
  // Lost samples are counted per ring: one slow ring is worth a warning even
  // when the others were drained in time.
  auto share = [](uint64_t lost, uint64_t got) {
    return lost + got == 0 ? 0.0 : static_cast<double>(lost) / static_cast<double>(lost + got);
  };
  double lost_share = share(out.stats.lost, t.samples);
  double worst = 0;
  for (const auto& r : out.rings) {
    if (!r.off_cpu) worst = std::max(worst, share(r.lost, r.samples));  // switch records: above
  }
  if (lost_share > kLostWarnShare || worst > kLostWarnShare) {
    // The rate named is the overall one, or the worst ring's when only one ring fell behind.
    logWarning(fmt::format("{:.1f}% of samples were lost: strobe did not drain the ring in time",
                           100.0 * (lost_share > kLostWarnShare ? lost_share : worst)),
               "lower the rate (-F) or enlarge the ring (--mmap-pages, e.g. 512)");
  }
  uint64_t corrupt = 0;
  for (const auto& r : out.rings) corrupt += r.corrupt;
  if (corrupt > 0) {
    logWarning(
        fmt::format("a perf ring held a corrupt record header {} time{}: what it held then "
                    "was dropped, samples with it",
                    corrupt, corrupt == 1 ? "" : "s"),
        "this is a defect in strobe or the kernel: please report it with the kernel version");
  }
  if (out.malformed_records > 0) {
    logWarning(fmt::format("{} perf record{} did not decode and {} dropped", out.malformed_records,
                           out.malformed_records == 1 ? "" : "s",
                           out.malformed_records == 1 ? "was" : "were"),
               "this is a defect in strobe: please report it with the kernel version");
  }
  if (std::string s = output::throttledLine(m); !s.empty()) {
    const uint64_t rate = perf::readMaxSampleRate();
    logWarning(s, fmt::format("{}{}", output::kThrottledHint,
                              rate != 0 ? fmt::format(" (it is {} now)", rate) : std::string()));
  }
  if (std::string s = output::stackCompletenessLine(p); !s.empty()) {
    fmt::print(err, "strobe: stacks: {}\n", s);
  }
  // CPU no sample covers (threads too short to be sampled): a warning once
  // it matters (1% of what was sampled), always a line in the report.
  if (std::string s = output::unsampledLine(m, t.weight);
      !s.empty() && m.unsampled_count * 100 > t.weight) {
    // A shorter period leaves less of each thread unsampled.
    const uint64_t higher = m.frequency != 0 && m.frequency < 999 ? 999 : 4 * m.frequency;
    logWarning(s, m.sample_period != 0
                      ? std::string("lower -c to sample short-lived threads")
                      : fmt::format("raise -F (e.g. -F {}) to sample short-lived threads", higher));
  }
  if (std::string s = output::spansLine(p); !s.empty()) fmt::print(err, "strobe: spans: {}\n", s);
  fmt::print(err, "strobe: wrote {}; top functions:\n", terminalSafe(path));
  output::TextOptions opt;
  opt.top = 10;
  opt.width = output::terminalWidth(err);
  output::writeTopTable(p, opt, err);
}

int runRecordChecked(RecordArgs& a) {
  record::RecordOptions opt;
  if (int rc = toRecordOptions(a, kRecordUsage, opt); rc != 0) return rc;
  opt.spans = true;  // programs linked with libstrobe send their spans and roles
  // The output is checked, and the recording streamed to it, before the
  // command starts (record_output.hpp).
  std::unique_ptr<RecordOutput> output = RecordOutput::open(a.output);
  if (!output) return kExitOutput;
  opt.tick_ns = kStreamIntervalNs;
  opt.on_tick = [&output](model::Profile& p, const record::TickInfo& t) {
    output->onTick(p, t);
    return true;
  };

  model::Profile profile;
  auto outcome = record::record(opt, profile);
  if (!outcome) {
    output->abandon();
    logError(outcome.error());
    return exitCodeFor(outcome.error());
  }
  output->endStream(profile);

  if (std::getenv("STROBE_DEBUG") != nullptr) {
    std::fprintf(stderr, "strobe: debug: engine %s, %zu events opened\n",
                 record::engineName(outcome->engine), outcome->events_opened);
    if (!opt.pids.empty() && outcome->engine == record::EngineKind::kPerf) {
      std::fprintf(stderr, "strobe: debug: attach mode %s, %zu events opened\n",
                   record::attachModeName(outcome->attach_mode), outcome->events_opened);
    }
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
  // --off-cpu: why each thread blocked, from its symbolized stack.
  if (opt.off_cpu) record::applyWaitReasons(profile);
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

  // What annotate needs after the binaries are gone (model/code.hpp).
  auto code0 = std::chrono::steady_clock::now();
  const uint64_t code_bytes = symbolizer.keepCode(profile);
  if (std::getenv("STROBE_DEBUG") != nullptr) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - code0).count();
    std::fprintf(stderr, "strobe: debug: kept the code of %zu functions, %llu bytes, in %.1f ms\n",
                 profile.code().size(), static_cast<unsigned long long>(code_bytes), ms);
  }

  const int written = output->write(profile);
  if (std::getenv("STROBE_DEBUG") != nullptr) {
    const store::StreamStats s = output->streamStats();
    fmt::print(stderr,
               "strobe: debug: streamed {} samples ({} rows) in {} batches: writer thread {:.1f} "
               "ms CPU (longest batch {:.1f} ms), recording thread {:.2f} ms copying (longest "
               "{:.0f} us)\n",
               s.samples, s.rows, s.batches, s.writer_cpu_ns / 1e6, s.max_write_ns / 1e6,
               s.copy_ns / 1e6, s.max_copy_ns / 1e3);
  }
  printSummary(profile, *outcome, output->writtenTo());
  return written != 0 ? written : outcome->exit_status;
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
  addSamplingOptions(sub, *args);
  sub->add_option("-o,--output", args->output,
                  "Recording to write (an existing one is kept as FILE.old)")
      ->capture_default_str();
  sub->add_flag("-a,--all-cpus", args->all_cpus, "Sample every process on every CPU");
  sub->add_option("command", args->command, "The command to profile and its arguments");
  sub->prefix_command();  // everything from the command on belongs to it
  sub->footer(std::string("Examples: strobe record -F 999 -- ./server --port 8080\n"
                          "          strobe record -p 1234 -d 30s\n"
                          "Environment: DEBUGINFOD_URLS (fetch missing debug files from these\n"
                          "debuginfod servers; off when unset), STROBE_TIMINGS=1 (print the\n"
                          "symbolization phase's CPU and wall time).\n") +
              kExitCodesHelp);
  return [args, sub, has_dashes, command] {
    if (int rc = takeCommand(*args, sub, has_dashes, command, kRecordUsage); rc != 0) return rc;
    return runRecord(*args);
  };
}

}  // namespace strobe::cli
