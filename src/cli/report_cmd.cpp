// strobe report [FILE] [--format F] [-o OUT] [--by ...] [--top N] [filters]
#include <climits>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "base/duration.hpp"
#include "base/heap.hpp"
#include "base/keep_until_exit.hpp"
#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/recording_input.hpp"
#include "cli/report_args.hpp"
#include "cli/source_files.hpp"
#include "model/address_table.hpp"
#include "output/format.hpp"
#include "store/store.hpp"

namespace strobe::cli {
namespace {

constexpr long long kNotGiven = LLONG_MIN;

struct ReportArgs {
  std::string file = "strobe.db";
  TableArgs table;
  bool tree = false;
  bool per_thread = false;
  std::string callers, callees;
  uint64_t bucket = 0;  // --bucket BYTES; 0: not given
  bool spans = false;
  std::string span;
  long long slowest = kNotGiven;
  std::string longer_than;
};

int runReport(const ReportArgs& a) {
  // A short-lived index (base/heap.hpp): a perf.data's report builds the
  // symbolizer's tables and the Profile in vectors that grow and are freed;
  // as fresh mmaps, each was faulted in page by page (about 15% of a `-g`
  // report's CPU, docs/BENCHMARKS.md).
  preferLargeHeap();
  output::ReportOptions opt;
  if (Status st = applyTableArgs(a.table, opt); !st) return failWith(st.error());
  opt.source = a.file;
  SourceFiles sources;  // the html viewer embeds the hottest functions' lines
  opt.source_lines = [&sources](const std::string& f) { return sources.lines(f); };
  opt.tree = a.tree;
  opt.per_thread = a.per_thread;
  opt.callers = a.callers;
  opt.callees = a.callees;
  if (a.bucket != 0 && opt.by != model::GroupBy::kAddress) {
    return failWith(makeError("--bucket needs --by address", "add --by address, or drop --bucket",
                              ErrorKind::kUsage));
  }
  if (a.bucket != 0 && !model::validBucket(a.bucket)) {
    return failWith(
        makeError("--bucket " + std::to_string(a.bucket) + " is not a power of two from 1 to " +
                      std::to_string(model::kMaxBucket),
                  "use e.g. --bucket 16 (powers of two align alike in the file and in memory)",
                  ErrorKind::kUsage));
  }
  if (a.bucket != 0) opt.bucket = a.bucket;
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
      if (!d) return failWith(d.error());
      sel.longer_than_ns = *d;
    }
    opt.filter.span = sel;
  }

  auto format = resolveFormat(a.table);
  if (!format) return failWith(format.error());

  InputOptions input;
  input.event = a.table.event;
  // --by address names addresses function+offset from the kept code ranges.
  input.keep_code = opt.by == model::GroupBy::kAddress;
  auto profile = readForReport(a.file, input);
  if (!profile) return failWith(profile.error());
  if (opt.by == model::GroupBy::kAddress && !isPerfDataInput(a.file)) {
    if (auto code = store::readCode(a.file, *profile); !code) {
      logWarning(code.error().describe() + ": rows show functions without offsets",
                 code.error().hint);
    }
  }

  ReportOutput output;
  auto out = output.open(a.table.output);
  if (!out) return failWith(out.error());
  if (Status st = output.close(output::writeFormat(*profile, *format, opt, *out)); !st) {
    return failWith(st.error());
  }
  keepUntilExit(std::make_unique<model::Profile>(std::move(*profile)));
  return 0;
}

}  // namespace

Runner addReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand("report", "Print a report from a recording");
  sub->add_option("file", args->file,
                  "The recording: strobe's, or a perf.data (- reads perf record -o - from stdin)")
      ->capture_default_str();
  addTableOptions(sub, args->table, output::formatList(),
                  "Group by: function, line, file, module, thread, process or address");
  sub->add_option("--bucket", args->bucket,
                  "--by address: one row per aligned bucket of BYTES (a power of two, <= 4096)");
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
  return [args] { return runReport(*args); };
}

}  // namespace strobe::cli
