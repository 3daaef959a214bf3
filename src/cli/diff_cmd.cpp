// strobe diff BASE NEW [report's options] [--min-change PCT]
//   [--normalize total|span:NAME] [--fail-on-slower PCT]
// strobe diff BASE... --vs NEW...: several runs a side.
// Parses, reads the recordings (at once, one thread each), and calls the
// model's comparison (model/diff.hpp) and the output's diff writers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/report_args.hpp"
#include "cli/source_files.hpp"
#include "model/diff.hpp"
#include "model/diff_tree.hpp"
#include "model/filter.hpp"
#include "model/measure.hpp"
#include "output/diff_writers.hpp"

namespace strobe::cli {
namespace {

struct DiffArgs {
  std::vector<std::string> files;
  std::vector<std::string> vs;
  TableArgs table;
  std::string min_change;
  std::string normalize = "none";
  std::string fail_on_slower;
};

// "2", "2%" or "0.5%": a percentage, >= 0.
Result<double> parsePercent(const std::string& option, const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  const double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
  if (std::isnan(v) || end == nullptr || *end != '\0' || v < 0 || std::isinf(v)) {
    return makeError(option + " " + text + " is not a percentage",
                     "give a number of percent, e.g. " + option + " 2", ErrorKind::kUsage);
  }
  return v;
}

Status parseNormalize(const std::string& text, model::DiffOptions& o) {
  if (text == "none") {
    o.normalize = model::Normalize::kNone;
  } else if (text == "total") {
    o.normalize = model::Normalize::kTotal;
  } else if (text.rfind("span:", 0) == 0 && text.size() > 5) {
    o.normalize = model::Normalize::kSpan;
    o.span = text.substr(5);
  } else {
    return makeError("unknown --normalize '" + text + "'",
                     "use --normalize total (shares) or span:NAME (per span of that name)",
                     ErrorKind::kUsage);
  }
  return {};
}

// The recordings: strobe's read at once (one thread each: reading is most
// of the time a diff of large recordings takes), perf.data files imported
// one after another on this thread (an import prints its warnings).
Result<std::vector<model::Profile>> readAll(const std::vector<std::string>& paths,
                                            const InputOptions& input) {
  std::vector<std::optional<Result<model::Profile>>> read(paths.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (isPerfDataInput(paths[i])) continue;
    threads.emplace_back([&, i] { read[i].emplace(readRecording(paths[i], input)); });
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    if (isPerfDataInput(paths[i])) read[i].emplace(readRecording(paths[i], input));
  }
  for (std::thread& t : threads) t.join();
  std::vector<model::Profile> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!*read[i]) return read[i]->error();
    completeForReport(paths[i], **read[i]);
    out.push_back(std::move(**read[i]));
  }
  return out;
}

// The runs whose verdict is slower by more than `pct` percent (the total,
// then rows), one line each on stderr; whether there were any.
bool reportSlower(const model::ProfileDiff& d, double pct) {
  bool any = false;
  auto offend = [&](const std::string& name, const model::DiffMeasure& m) {
    if (!(m.changePct() > pct)) return;
    logInfo("slower: " + name + " " + output::changePctText(m) + " (" +
            output::diffAmount(m.base, d.measure) + " -> " + output::diffAmount(m.next, d.measure) +
            "), more than --fail-on-slower " + fmt::format("{:g}", pct) + "%");
    any = true;
  };
  if (d.total.verdict == model::Verdict::kSlower) offend("the total", d.total);
  for (const model::DiffRow& r : d.rows) {
    if (r.verdict != model::Verdict::kSlower) continue;
    // The measure the verdict came from: the total's, else the self's.
    offend(r.name, r.total.verdict == model::Verdict::kSlower ? r.total : r.self);
  }
  return any;
}

int runDiff(const DiffArgs& a) {
  output::ReportOptions opt;
  if (Status st = applyTableArgs(a.table, opt); !st) return failWith(st.error());
  std::vector<std::string> base = a.files;
  std::vector<std::string> next = a.vs;
  if (next.empty()) {
    if (base.size() != 2) {
      return failWith(
          makeError(base.size() < 2 ? "strobe diff needs two recordings"
                                    : "strobe diff takes one base and one new recording",
                    "strobe diff BASE NEW, or strobe diff BASE... --vs NEW... for several "
                    "runs a side",
                    ErrorKind::kUsage));
    }
    next = {base[1]};
    base.resize(1);
  } else if (base.empty()) {
    return failWith(makeError("strobe diff needs the base recordings before --vs",
                              "strobe diff BASE... --vs NEW...", ErrorKind::kUsage));
  }
  model::DiffOptions o;
  o.by = opt.by;
  o.fold_inline = opt.no_inline;
  if (Status st = parseNormalize(a.normalize, o); !st) return failWith(st.error());
  if (!a.min_change.empty()) {
    auto v = parsePercent("--min-change", a.min_change);
    if (!v) return failWith(v.error());
    o.min_change_pct = *v;
  }
  std::optional<double> fail_pct;
  if (!a.fail_on_slower.empty()) {
    auto v = parsePercent("--fail-on-slower", a.fail_on_slower);
    if (!v) return failWith(v.error());
    fail_pct = *v;
  }
  auto format = resolveFormat(a.table);
  if (!format) return failWith(format.error());
  if (!output::hasDiffForm(*format)) {
    return failWith(
        makeError("strobe diff has no " + std::string(output::formatName(*format)) + " form",
                  "use --format text, json, csv, flamegraph, html or pprof", ErrorKind::kUsage));
  }

  std::vector<std::string> paths = base;
  paths.insert(paths.end(), next.begin(), next.end());
  InputOptions input;
  input.event = a.table.event;
  auto profiles = readAll(paths, input);
  if (!profiles) return failWith(profiles.error());
  // One view for every run: --view, else the first base run's own.
  const model::View view =
      opt.view != model::View::kAuto ? opt.view : model::viewOf(profiles->front());
  model::SampleFilter filter = opt.filter;
  filter.view = view;
  std::vector<std::vector<model::Sample>> kept(paths.size());
  std::vector<model::DiffRun> runs;
  for (size_t i = 0; i < paths.size(); ++i) {
    const model::Profile& p = (*profiles)[i];
    if (Status st = model::checkView(p, view); !st) {
      return failWith(
          makeError(paths[i] + ": " + st.error().message, st.error().hint, ErrorKind::kUsage));
    }
    model::DiffRun run{&p, p.samples(), paths[i], filter};
    // A copy of the samples only when the filters drop some.
    const auto& all_samples = p.samples();
    const auto first_dropped =
        std::find_if(all_samples.begin(), all_samples.end(),
                     [&](const model::Sample& s) { return !model::keepSample(p, filter, s); });
    if (first_dropped != all_samples.end()) {
      kept[i].assign(all_samples.begin(), first_dropped);
      for (auto it = first_dropped; it != all_samples.end(); ++it) {
        if (model::keepSample(p, filter, *it)) kept[i].push_back(*it);
      }
      run.samples = kept[i];
    }
    runs.push_back(std::move(run));
  }
  const std::span<const model::DiffRun> all(runs);
  const auto base_runs = all.first(base.size());
  const auto next_runs = all.subspan(base.size());
  auto diff = model::diffProfiles(base_runs, next_runs, o);
  if (!diff) return failWith(diff.error());
  std::optional<model::DiffTree> tree;
  const bool pictures = *format == output::Format::kFlamegraph ||
                        *format == output::Format::kHtml || *format == output::Format::kPprof;
  if (pictures) {
    auto t = model::diffTree(base_runs, next_runs, o, *diff);
    if (!t) return failWith(t.error());
    tree = std::move(*t);
  }

  output::DiffReportOptions out_opt;
  out_opt.top = opt.top;
  out_opt.threshold_pct = opt.threshold_pct.value_or(0);
  out_opt.width = opt.width;
  // html: each run's own viewer page, of the samples compared.
  std::vector<model::Profile> selected;
  SourceFiles sources;
  if (*format == output::Format::kHtml) {
    selected.reserve(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      model::Profile p = model::filterSamples((*profiles)[i], filter);
      p.setView(view);
      selected.push_back(std::move(p));
    }
    for (const model::Profile& p : selected) out_opt.runs.push_back(&p);
    out_opt.html.no_inline = opt.no_inline;
    out_opt.html.source_lines = [&sources](const std::string& f) { return sources.lines(f); };
  }
  ReportOutput output;
  auto out = output.open(a.table.output);
  if (!out) return failWith(out.error());
  Status written = output::writeDiff(*diff, tree ? &*tree : nullptr, *format, out_opt, *out);
  if (Status st = output.close(written); !st) return failWith(st.error());
  if (fail_pct && reportSlower(*diff, *fail_pct)) return kExitSlower;
  return 0;
}

}  // namespace

Runner addDiffCommand(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* sub =
      app.add_subcommand("diff", "Compare runs: what got slower or faster, told apart from noise");
  sub->add_option("recordings", args->files,
                  "BASE NEW; or the base runs, with --vs before the new runs");
  sub->add_option("--vs", args->vs,
                  "The new runs (after the base runs: a1.db a2.db --vs b1.db b2.db)")
      ->expected(1, -1);
  addTableOptions(sub, args->table, "text, json, csv, flamegraph, html or pprof",
                  "Group by: function, line, file, module, thread or process");
  sub->add_option("--min-change", args->min_change,
                  "Smallest change called slower or faster, in percent of the base's total "
                  "(default: 1)");
  sub->add_option("--normalize", args->normalize,
                  "What is compared: none (time per run), total (shares of the total) or "
                  "span:NAME (time per span of that name)")
      ->capture_default_str();
  sub->add_option("--fail-on-slower", args->fail_on_slower,
                  "Exit with status 7 when the total or any function is slower by more than "
                  "this percentage (one line each on stderr)");
  sub->footer(std::string("Examples: strobe diff before.db after.db\n"
                          "          strobe diff a1.db a2.db a3.db --vs b1.db b2.db b3.db\n"
                          "          strobe diff base.db new.db --fail-on-slower 5 -o diff.html\n"
                          "Rows by the size of their change in self time; a verdict of slower or\n"
                          "faster only beyond the noise the runs show and beyond --min-change.\n") +
              kExitCodesHelp);
  return [args] { return runDiff(*args); };
}

}  // namespace strobe::cli
