// strobe report [FILE] [--format F] [-o OUT] [--by ...] [--top N] [filters]
#include <climits>
#include <cstdint>
#include <cstdio>
#include <memory>

#include <unistd.h>

#include "base/duration.hpp"
#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/recording_input.hpp"
#include "cli/source_files.hpp"
#include "model/address_table.hpp"
#include "model/filter.hpp"
#include "model/measure.hpp"
#include "output/format.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"
#include "store/store.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::cli {
namespace {

constexpr int64_t kWidthUnset = INT64_MIN;
constexpr long long kNotGiven = LLONG_MIN;

struct ReportArgs {
  std::string file = "strobe.db";
  std::string format;
  std::string output;
  std::string by = "function";
  int64_t top = 20;
  int64_t width = kWidthUnset;  // the terminal's (none when stdout is not one)
  double threshold = -1;
  std::string since, until;
  std::vector<int32_t> tids;
  std::vector<std::string> threads;
  bool no_inline = false;
  bool tree = false;
  bool per_thread = false;
  std::string callers, callees;
  uint64_t bucket = 0;  // --bucket BYTES; 0: not given
  bool spans = false;
  std::string span;
  long long slowest = kNotGiven;
  std::string longer_than;
  std::string view;   // --view cpu|off-cpu|wall ("": the recording's own)
  std::string event;  // --event: which of a perf.data's events
};

Result<model::GroupBy> parseGroupBy(const std::string& by) {
  if (std::optional<model::GroupBy> g = model::parseGroupBy(by)) return *g;
  return makeError("unknown --by '" + by + "'",
                   "use --by function, line, file, module, thread, process or address",
                   ErrorKind::kUsage);
}

int fail(const Error& e) {
  logError(e);
  return exitCodeFor(e) == kExitUsage ? kExitUsage : kExitError;
}

int runReport(const ReportArgs& a) {
  output::ReportOptions opt;
  if (a.top < 0) {
    logError("--top " + std::to_string(a.top) + " is not a number of rows",
             "use --top N with N >= 1, or --top 0 for every row");
    return kExitUsage;
  }
  opt.top = static_cast<size_t>(a.top);
  if (a.width != kWidthUnset && a.width < 0) {
    logError("--width " + std::to_string(a.width) + " is not a number of columns",
             "use --width N with N >= 1, or --width 0 to never cut names");
    return kExitUsage;
  }
  opt.source = a.file;
  SourceFiles sources;  // the html viewer embeds the hottest functions' lines
  opt.source_lines = [&sources](const std::string& f) { return sources.lines(f); };
  opt.no_inline = a.no_inline;
  opt.tree = a.tree;
  opt.per_thread = a.per_thread;
  opt.callers = a.callers;
  opt.callees = a.callees;
  if (a.threshold >= 0) opt.threshold_pct = a.threshold;
  auto by = parseGroupBy(a.by);
  if (!by) return fail(by.error());
  opt.by = *by;
  if (a.bucket != 0 && opt.by != model::GroupBy::kAddress) {
    return fail(makeError("--bucket needs --by address", "add --by address, or drop --bucket",
                          ErrorKind::kUsage));
  }
  if (a.bucket != 0 && !model::validBucket(a.bucket)) {
    return fail(
        makeError("--bucket " + std::to_string(a.bucket) + " is not a power of two from 1 to " +
                      std::to_string(model::kMaxBucket),
                  "use e.g. --bucket 16 (powers of two align alike in the file and in memory)",
                  ErrorKind::kUsage));
  }
  if (a.bucket != 0) opt.bucket = a.bucket;
  if (!a.since.empty()) {
    auto d = parseDuration(a.since);
    if (!d) return fail(d.error());
    opt.filter.since_ns = *d;
  }
  if (!a.until.empty()) {
    auto d = parseDuration(a.until);
    if (!d) return fail(d.error());
    opt.filter.until_ns = *d;
  }
  opt.filter.tids = a.tids;
  opt.filter.threads = a.threads;
  opt.spans = a.spans;
  if ((a.slowest != kNotGiven || !a.longer_than.empty()) && a.span.empty()) {
    logError(
        std::string(a.slowest != kNotGiven ? "--slowest" : "--longer-than") + " needs --span NAME",
        "name the spans: --span request --slowest 20");
    return kExitUsage;
  }
  if (!a.span.empty()) {
    model::SpanSelection sel;
    sel.name = a.span;
    if (a.slowest != kNotGiven) {
      if (a.slowest <= 0) {
        logError("--slowest " + std::to_string(a.slowest) + " keeps no span",
                 "give how many of the slowest spans to keep, at least 1");
        return kExitUsage;
      }
      sel.slowest = static_cast<size_t>(a.slowest);
    }
    if (!a.longer_than.empty()) {
      auto d = parseDuration(a.longer_than);
      if (!d) return fail(d.error());
      sel.longer_than_ns = *d;
    }
    opt.filter.span = sel;
  }
  if (!a.view.empty()) {
    std::optional<model::View> v = model::parseView(a.view);
    if (!v) {
      logError("unknown --view '" + a.view + "'", "use --view cpu, off-cpu or wall");
      return kExitUsage;
    }
    opt.view = *v;
  }

  output::Format format = output::Format::kText;
  if (!a.format.empty()) {
    auto f = output::parseFormat(a.format);
    if (!f) return fail(f.error());
    format = *f;
  } else if (!a.output.empty()) {
    auto f = output::formatFromPath(a.output);
    if (!f) {
      logError("cannot tell the format of '" + a.output + "' from its name",
               "add --format (" + output::formatList() + ")");
      return kExitUsage;
    }
    format = *f;
  }
  if (format == output::Format::kPprof && a.output.empty() && isatty(fileno(stdout))) {
    logError("pprof output is binary; not writing it to a terminal", "add -o FILE.pb.gz");
    return kExitUsage;
  }

  const bool perf_data = isPerfDataInput(a.file);
  InputOptions input;
  input.event = a.event;
  // --by address names addresses function+offset from the kept code ranges.
  input.keep_code = opt.by == model::GroupBy::kAddress;
  auto profile = readRecording(a.file, input);
  if (!profile) return fail(profile.error());
  if (profile->meta().incomplete != 0) {
    // Streamed by a strobe record that never finished (killed, or unable to
    // write the end): its frames are named now, from the programs as they
    // are on this machine (a changed or missing one is warned about).
    logWarning(a.file + " is incomplete: strobe record did not finish it (killed?); it holds " +
                   std::to_string(profile->samples().size()) + " samples of the first " +
                   output::formatDuration(profile->meta().duration_ns),
               "frames are named from the programs on this machine now, not as they were "
               "recorded");
    symbolize::Symbolizer symbolizer;
    if (auto st = symbolizer.symbolize(*profile); !st) logWarning(st.error().describe());
    for (const std::string& w : symbolizer.warnings()) logWarning(w);
  }
  if (opt.by == model::GroupBy::kAddress && !perf_data) {
    if (auto code = store::readCode(a.file, *profile); !code) {
      logWarning(code.error().describe() + ": rows show functions without offsets",
                 code.error().hint);
    }
  }

  std::FILE* out = stdout;
  // Names fit the terminal's width; in a file or a pipe they are whole.
  opt.width = a.width != kWidthUnset ? static_cast<size_t>(a.width)
              : a.output.empty()     ? output::terminalWidth(stdout)
                                     : output::kNoWidthLimit;
  if (!a.output.empty()) {
    out = std::fopen(a.output.c_str(), "wb");
    if (out == nullptr) {
      return fail(systemError("cannot create '" + a.output + "'",
                              "check that the folder exists and is writable"));
    }
  }
  Status st = output::writeFormat(*profile, format, opt, out);
  if (out != stdout && std::fclose(out) != 0 && st) {
    st = systemError("cannot write '" + a.output + "'", "check free space");
  }
  if (!st) {
    if (out != stdout) std::remove(a.output.c_str());
    return fail(st.error());
  }
  return 0;
}

}  // namespace

Runner addReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand("report", "Print a report from a recording");
  sub->add_option("file", args->file,
                  "The recording: strobe's, or a perf.data (- reads perf record -o - from stdin)")
      ->capture_default_str();
  sub->add_option("-f,--format", args->format,
                  output::formatList() + " (default: from -o's extension, else text)");
  sub->add_option("-o,--output", args->output, "Write to this file instead of stdout");
  sub->add_option("--by", args->by,
                  "Group by: function, line, file, module, thread, process or address")
      ->capture_default_str();
  sub->add_option("--bucket", args->bucket,
                  "--by address: one row per aligned bucket of BYTES (a power of two, <= 4096)");
  sub->add_option("--top", args->top, "Rows to show (0: all)")->capture_default_str();
  sub->add_option("--width", args->width,
                  "text: columns to fit names in (default: the terminal's; 0 or not a terminal: "
                  "never cut)");
  sub->add_option("--threshold", args->threshold,
                  "Hide rows and tree nodes below this percentage of the total");
  sub->add_option("--since", args->since, "Only samples from this time after the start (1.5s)");
  sub->add_option("--until", args->until, "Only samples before this time after the start");
  sub->add_option("--tid", args->tids, "Only these threads (repeatable)");
  sub->add_option("--thread", args->threads,
                  "Only threads whose name or role matches (glob; repeatable)");
  sub->add_flag("--no-inline", args->no_inline, "Fold inlined functions into their caller");
  sub->add_flag("--tree", args->tree, "text: the top-down call tree (TOTAL%, SELF%)");
  sub->add_option("--callers", args->callers, "text: who calls this function, with shares");
  sub->add_option("--callees", args->callees, "text: what this function calls, with shares");
  sub->add_flag("--per-thread", args->per_thread,
                "folded, flamegraph: root stacks at their thread");
  sub->add_flag("--spans", args->spans,
                "One row per span name: count, durations, CPU inside (text, json, csv)");
  sub->add_option("--span", args->span,
                  "Only samples taken on a span's own thread while a span of this name was open");
  sub->add_option("--slowest", args->slowest, "With --span: only the N longest spans");
  sub->add_option("--longer-than", args->longer_than,
                  "With --span: only spans longer than this (e.g. 10ms)");
  sub->add_option("--view", args->view,
                  "Which time to show: cpu, off-cpu or wall (cpu + off-cpu); default: wall for "
                  "a recording made with --off-cpu, else cpu");
  sub->add_option("--event", args->event,
                  "A perf.data's event to show (perf's name, e.g. cycles:u; default: its first)");
  return [args] { return runReport(*args); };
}

}  // namespace strobe::cli
