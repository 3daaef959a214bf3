// strobe diff's text report, the dispatch of its formats, and the text
// pieces they share (diff_writers.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/terminal_text.hpp"
#include "model/module_path.hpp"
#include "output/diff_writers.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"

namespace strobe::output {
namespace {

std::string locationOf(const model::DiffRow& r) {
  if (r.file.empty()) return terminalSafe(r.module);
  if (r.line == 0) return terminalSafe(model::baseName(r.file));
  return fmt::format("{}:{}", terminalSafe(model::baseName(r.file)), r.line);
}

bool perTask(const model::ProfileDiff& d) {
  return d.options.by == model::GroupBy::kThread || d.options.by == model::GroupBy::kProcess;
}

double meanWeight(const model::DiffSide& s) {
  double sum = 0;
  for (uint64_t w : s.weight) sum += static_cast<double>(w);
  return s.weight.empty() ? 0.0 : sum / static_cast<double>(s.weight.size());
}

double pct(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

// "3 runs: a1.db, a2.db, a3.db" or "a.db".
std::string runNames(const model::DiffSide& s) {
  std::string names;
  for (const std::string& n : s.names) names += (names.empty() ? "" : ", ") + terminalSafe(n);
  if (s.names.size() == 1) return names;
  return fmt::format("{} runs: {}", s.names.size(), names);
}

std::string sideLine(const model::ProfileDiff& d, const model::DiffSide& s) {
  uint64_t samples = 0;
  uint64_t weight = 0;
  uint64_t spans = 0;
  for (size_t r = 0; r < s.names.size(); ++r) {
    samples += s.samples[r];
    weight += s.weight[r];
    spans += s.spans[r];
  }
  const auto runs = static_cast<double>(s.names.size());
  std::string line =
      fmt::format("{}; {} {} in {} samples", runNames(s),
                  diffAmount(static_cast<double>(weight) / runs, d.measure), d.measure.label,
                  static_cast<uint64_t>(std::llround(static_cast<double>(samples) / runs)));
  if (d.options.normalize == model::Normalize::kSpan) {
    line += fmt::format(", {} '{}' spans", std::llround(static_cast<double>(spans) / runs),
                        terminalSafe(d.options.span));
  }
  if (s.names.size() > 1) line += " (mean per run)";
  return line;
}

}  // namespace

bool hasDiffForm(Format f) {
  return f == Format::kText || f == Format::kJson || f == Format::kCsv ||
         f == Format::kFlamegraph || f == Format::kHtml || f == Format::kPprof;
}

std::vector<const model::DiffRow*> diffTableRows(const model::ProfileDiff& d,
                                                 const DiffReportOptions& opt) {
  std::vector<const model::DiffRow*> rows;
  for (const model::DiffRow& r : d.rows) {
    if (opt.threshold_pct > 0 && pct(r.total.base, d.total.base) < opt.threshold_pct &&
        pct(r.total.next, d.total.next) < opt.threshold_pct) {
      continue;
    }
    if (opt.top != 0 && rows.size() >= opt.top) break;
    rows.push_back(&r);
  }
  return rows;
}

Status writeDiff(const model::ProfileDiff& d, const model::DiffTree* tree, Format f,
                 const DiffReportOptions& opt, std::FILE* out) {
  const bool needs_tree = f == Format::kFlamegraph || f == Format::kHtml || f == Format::kPprof;
  if (!hasDiffForm(f)) {
    return makeError("strobe diff has no " + std::string(formatName(f)) + " form",
                     "use --format text, json, csv, flamegraph, html or pprof", ErrorKind::kUsage);
  }
  if (needs_tree && tree == nullptr) {
    return makeError("the " + std::string(formatName(f)) + " diff needs the merged call tree");
  }
  Status st;
  switch (f) {
    case Format::kJson:
      st = writeDiffJson(d, opt, out);
      break;
    case Format::kCsv:
      st = writeDiffCsv(d, opt, out);
      break;
    case Format::kFlamegraph:
      st = writeDiffFlamegraph(d, *tree, opt, out);
      break;
    case Format::kPprof:
      st = writeDiffPprof(d, *tree, out);
      break;
    case Format::kHtml:
      st = writeDiffHtml(d, *tree, opt, out);
      break;
    default:
      st = writeDiffText(d, opt, out);
      break;
  }
  if (!st) return st;
  if (std::fflush(out) != 0 || std::ferror(out)) {
    return systemError("cannot write the report", "check the output path and free space");
  }
  return {};
}

std::string diffAmount(double v, const model::Measure& m) {
  const double a = std::fabs(v);
  if (m.time()) {
    if (a > 0 && a < 1000) return fmt::format("{:.0f} ns", a);
    return formatDuration(static_cast<uint64_t>(std::llround(a)));
  }
  return fmt::format("{:.0f} {}", a, m.count_unit);
}

std::string signedAmount(double v, const model::Measure& m) {
  if (v == 0) return "0";
  std::string s(v > 0 ? "+" : "-");
  s += diffAmount(v, m);
  return s;
}

std::string changePctText(const model::DiffMeasure& m) {
  const double p = m.changePct();
  if (std::isinf(p)) return "new";
  return fmt::format("{:+.1f}%", p);
}

std::string comparedText(const model::ProfileDiff& d) {
  const std::string what = d.measure.time() ? d.measure.label + " time" : d.measure.type;
  switch (d.options.normalize) {
    case model::Normalize::kTotal:
      return fmt::format("shares of the total {} (the base scaled to the new total, x{:.3f})", what,
                         meanWeight(d.base) > 0 ? d.scale / meanWeight(d.base) : 1.0);
    case model::Normalize::kSpan:
      return fmt::format("{} per '{}' span (samples inside those spans only)", what,
                         terminalSafe(d.options.span));
    case model::Normalize::kNone:
      break;
  }
  return what + " per run";
}

std::string methodText(const model::ProfileDiff& d) {
  std::string noise = d.base.method == d.next.method && d.base.names.size() == d.next.names.size()
                          ? "each side's from " + model::noiseMethodText(d.base)
                          : "the base's from " + model::noiseMethodText(d.base) +
                                ", the new's from " + model::noiseMethodText(d.next);
  // model/diff_stats.hpp (compare): runs on both sides pool their spreads.
  const bool pooled = d.base.method == model::NoiseMethod::kAcrossRuns &&
                      d.next.method == model::NoiseMethod::kAcrossRuns;
  return fmt::format(
      "{}; {}; Benjamini-Hochberg at a {:g}% false discovery rate over {} comparisons", noise,
      pooled ? "Student's t on both sides' spreads pooled" : "Welch's t", 100 * d.options.fdr,
      d.tests);
}

std::vector<std::string> diffHeader(const model::ProfileDiff& d) {
  const model::Measure& m = d.measure;
  std::vector<std::string> lines;
  lines.push_back("base:       " + sideLine(d, d.base));
  lines.push_back("new:        " + sideLine(d, d.next));
  lines.push_back("compared:   " + comparedText(d));
  lines.push_back("noise:      " + methodText(d));
  lines.push_back(fmt::format(
      "verdict:    slower or faster when beyond the noise and beyond --min-change {:g}% of the "
      "base's total ({})",
      d.options.min_change_pct, diffAmount(d.min_change, m)));
  // The smallest change each comparison could have called.
  double lo = 0;
  double hi = 0;
  size_t n = 0;
  for (const model::DiffRow& r : d.rows) {
    if (!r.total.tested) continue;
    lo = n == 0 ? r.total.detectable : std::min(lo, r.total.detectable);
    hi = std::max(hi, r.total.detectable);
    ++n;
  }
  const std::string rows =
      n == 0     ? "no row could change by --min-change"
      : lo == hi ? fmt::format("a row {}", diffAmount(lo, m))
                 : fmt::format("a row from {} to {}", diffAmount(lo, m), diffAmount(hi, m));
  lines.push_back(fmt::format("detectable: the total {} ({:.1f}%); {}",
                              diffAmount(d.total.detectable, m),
                              pct(d.total.detectable, d.total.base), rows));
  lines.push_back(fmt::format("total:      {} -> {}, {} ({}): {}", diffAmount(d.total.base, m),
                              diffAmount(d.total.next, m), signedAmount(d.total.change, m),
                              changePctText(d.total), model::verdictName(d.total.verdict)));
  return lines;
}

std::string_view diffHeading(model::GroupBy by) {
  switch (by) {
    case model::GroupBy::kLine:
      return "LINE";
    case model::GroupBy::kFile:
      return "FILE";
    case model::GroupBy::kModule:
      return "MODULE";
    case model::GroupBy::kThread:
      return "THREAD";
    case model::GroupBy::kProcess:
      return "PROCESS";
    default:
      break;
  }
  return "FUNCTION";
}

Status writeDiffText(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out) {
  const model::Measure& m = d.measure;
  for (const std::string& line : diffHeader(d)) fmt::print(out, "{}\n", line);
  fmt::print(out, "\n");
  const std::vector<const model::DiffRow*> rows_shown = diffTableRows(d, opt);
  const std::string heading(diffHeading(d.options.by));
  struct Cells {
    std::string base, next, change, pct, noise, share, tbase, tnext, tpct, name, loc;
  };
  std::vector<Cells> cells;
  Cells head{"SELF-BASE",  "SELF-NEW",  "CHANGE", "CHANGE%", "NOISE",   "SHARE",
             "TOTAL-BASE", "TOTAL-NEW", "TOTAL%", heading,   "LOCATION"};
  std::vector<size_t> w = {head.base.size(),  head.next.size(),  head.change.size(),
                           head.pct.size(),   head.noise.size(), head.share.size(),
                           head.tbase.size(), head.tnext.size(), head.tpct.size()};
  size_t name_width = head.name.size();
  for (const model::DiffRow* r : rows_shown) {
    Cells c;
    c.base = diffAmount(r->self.base, m);
    c.next = diffAmount(r->self.next, m);
    c.change = signedAmount(r->self.change, m);
    c.pct = r->self.base == 0 && r->self.next == 0 ? "" : changePctText(r->self);
    c.noise = "+-" + diffAmount(r->self.detectable, m);
    c.share =
        fmt::format("{:+.1f}pp", pct(r->self.next, d.total.next) - pct(r->self.base, d.total.base));
    c.tbase = diffAmount(r->total.base, m);
    c.tnext = diffAmount(r->total.next, m);
    c.tpct = changePctText(r->total);
    c.name = terminalSafe(r->name);
    c.loc = perTask(d) ? std::string() : locationOf(*r);
    const std::string* v[] = {&c.base,  &c.next,  &c.change, &c.pct, &c.noise,
                              &c.share, &c.tbase, &c.tnext,  &c.tpct};
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::max(w[i], v[i]->size());
    name_width = std::max(name_width, c.name.size());
    cells.push_back(std::move(c));
  }
  size_t fixed = 8;  // the verdict column and its gap
  for (size_t x : w) fixed += x + 2;
  if (opt.width != kNoWidthLimit) {
    size_t room = opt.width > fixed + 10 ? opt.width - fixed - 10 : 0;
    name_width = std::min(name_width, std::max<size_t>(room, 20));
  }
  auto print = [&](const std::string& verdict, const Cells& c) {
    std::string line = fmt::format(
        "{:<6}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:<{}}  {}",
        verdict, c.base, w[0], c.next, w[1], c.change, w[2], c.pct, w[3], c.noise, w[4], c.share,
        w[5], c.tbase, w[6], c.tnext, w[7], c.tpct, w[8], fitMiddle(c.name, name_width), name_width,
        c.loc);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  };
  print("VERDICT", head);
  for (size_t i = 0; i < rows_shown.size(); ++i) {
    print(std::string(model::verdictName(rows_shown[i]->verdict)), cells[i]);
  }
  if (rows_shown.empty()) fmt::print(out, "(no rows)\n");
  if (rows_shown.size() < d.rows.size()) {
    size_t hidden_changes = 0;
    for (const model::DiffRow& r : d.rows) {
      if (r.verdict != model::Verdict::kSame) ++hidden_changes;
    }
    for (const model::DiffRow* r : rows_shown) {
      if (r->verdict != model::Verdict::kSame) --hidden_changes;
    }
    fmt::print(
        out, "({} more rows{}; {} shows all)\n", d.rows.size() - rows_shown.size(),
        hidden_changes == 0 ? ", all same" : fmt::format(", {} of them not same", hidden_changes),
        opt.threshold_pct > 0 ? "--top 0 --threshold 0" : "--top 0");
  }
  return {};
}

}  // namespace strobe::output
