// strobe record [-F HZ] [-g fp|dwarf[,BYTES]|auto|none] [-o FILE] [--mmap-pages N] -- CMD ARGS
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>

#include "base/log.hpp"
#include "cli/call_graph.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "model/aggregate.hpp"
#include "output/stack_completeness.hpp"
#include "output/text_report.hpp"
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
};

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
  fmt::print(err,
             "strobe: recorded {} ({}), {} threads, {} samples, {:.0f} samples per CPU-second, "
             "{} lost\n",
             output::formatCommand(m.command), output::formatDuration(m.duration_ns), t.threads,
             t.samples, rate, out.stats.lost);
  uint64_t attempted = t.samples + out.stats.lost;
  if (attempted > 0 &&
      static_cast<double>(out.stats.lost) / static_cast<double>(attempted) > kLostWarnShare) {
    logWarning(
        fmt::format("{:.1f}% of samples were lost: strobe did not drain the ring in time",
                    100.0 * static_cast<double>(out.stats.lost) / static_cast<double>(attempted)),
        "lower the rate (-F) or enlarge the ring (--mmap-pages, e.g. 512)");
  }
  if (out.stats.throttled > 0) {
    logWarning(fmt::format("the kernel throttled sampling {} times", out.stats.throttled),
               "lower -F below kernel.perf_event_max_sample_rate");
  }
  if (std::string s = output::stackCompletenessLine(p); !s.empty()) {
    fmt::print(err, "strobe: stacks: {}\n", s);
  }
  fmt::print(err, "strobe: wrote {}; top functions:\n", path);
  output::TextOptions opt;
  opt.top = 10;
  output::writeTopTable(p, opt, err);
}

int runRecord(RecordArgs& a) {
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
  if (a.command.empty()) {
    logError("no command to profile", "usage: strobe record [OPTIONS] -- CMD [ARGS]");
    return kExitUsage;
  }

  record::RecordOptions opt;
  opt.command = a.command;
  opt.frequency = a.frequency;
  opt.callchain = call_graph->callchain;
  opt.stack_copy_bytes = call_graph->stack_copy;
  opt.unwind_auto = call_graph->unwind_auto;
  opt.mmap_pages = a.mmap_pages;

  model::Profile profile;
  auto outcome = record::recordCommand(opt, profile);
  if (!outcome) {
    logError(outcome.error());
    return exitCodeFor(outcome.error());
  }

  symbolize::Symbolizer symbolizer;
  if (auto st = symbolizer.symbolize(profile); !st) logWarning(st.error().describe());
  for (const std::string& w : symbolizer.warnings()) logWarning(w);

  bool moved = keepOld(a.output);
  if (auto st = store::writeProfile(profile, a.output); !st) {
    logError(st.error());
    if (moved) ::rename((a.output + ".old").c_str(), a.output.c_str());
    return outcome->exit_status != 0 ? outcome->exit_status : kExitError;
  }
  printSummary(profile, *outcome, a.output);
  return outcome->exit_status;
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
  auto* positional =
      sub->add_option("command", args->command, "The command to profile and its arguments");
  if (!has_dashes) positional->required();
  sub->prefix_command();  // everything from the command on belongs to it
  sub->footer(std::string("Example: strobe record -F 999 -- ./server --port 8080\n") +
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
    return runRecord(*args);
  };
}

}  // namespace strobe::cli
