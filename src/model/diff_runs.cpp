#include "model/diff_runs.hpp"

#include <algorithm>
#include <cmath>

#include "model/spans.hpp"

namespace strobe::model {

Result<PreparedRun> prepareRun(const DiffRun& run, const DiffOptions& opt) {
  PreparedRun r;
  r.profile = run.profile;
  r.duration_ns = run.profile->meta().duration_ns;
  const Profile& p = *run.profile;
  const size_t k = std::max<size_t>(opt.blocks, stats::kMinBlocks);
  r.samples = run.samples;
  std::vector<const Span*> counted;
  if (opt.normalize == Normalize::kSpan) {
    if (!hasSpanName(p, opt.span)) {
      return makeError(run.name + " has no span named '" + opt.span + "'",
                       p.spans().empty()
                           ? "--normalize span: needs recordings of programs that mark spans "
                             "(libstrobe's strobe_span_begin/strobe_span_end)"
                           : "see its span names with: strobe report " + run.name + " --spans",
                       ErrorKind::kUsage);
    }
    SpanSelection sel;
    sel.name = opt.span;
    const std::vector<uint32_t> picked = selectSpans(p, sel);
    SpanWindows windows(p, picked);
    for (const Sample& s : run.samples) {
      if (windows.contains(s.tid, s.time_ns)) r.own.push_back(s);
    }
    r.samples = r.own;
    // The spans that end within the filter's window, on the threads it keeps.
    SampleFilter threads = run.filter;
    threads.view = View::kAuto;
    threads.span.reset();
    for (uint32_t i : picked) {
      const Span& s = p.spans()[i];
      Sample at;
      at.time_ns = s.end_ns;
      at.tid = s.tid;
      if (keepSample(p, threads, at)) counted.push_back(&s);
    }
    if (counted.empty()) {
      return makeError("no span named '" + opt.span + "' of " + run.name +
                           " ends within the window and threads compared",
                       "widen --since/--until, or check --tid/--thread", ErrorKind::kUsage);
    }
  }
  if (r.samples.empty()) {
    return makeError(run.name + " has no samples to compare" +
                         (opt.normalize == Normalize::kSpan ? " inside its '" + opt.span + "' spans"
                                                            : std::string()),
                     "check --since/--until, --tid, --thread and --view", ErrorKind::kUsage);
  }
  uint64_t first = UINT64_MAX;
  uint64_t last = 0;
  double squares = 0;
  for (const Sample& s : r.samples) {
    first = std::min(first, s.time_ns);
    last = std::max(last, s.time_ns);
    r.weight += s.weight;
    squares += static_cast<double>(s.weight) * static_cast<double>(s.weight);
  }
  const double span_ns = static_cast<double>(last - first) + 1.0;
  auto blockOf = [&](uint64_t t) {
    const double at = t <= first ? 0.0 : static_cast<double>(t - first);
    return static_cast<uint16_t>(std::min<double>(std::floor(at * static_cast<double>(k) / span_ns),
                                                  static_cast<double>(k - 1)));
  };
  r.block.resize(r.samples.size());
  r.norm.assign(k, 0.0);
  for (size_t i = 0; i < r.samples.size(); ++i) {
    r.block[i] = blockOf(r.samples[i].time_ns);
    if (opt.normalize != Normalize::kSpan) {
      r.norm[r.block[i]] += static_cast<double>(r.samples[i].weight);
    }
  }
  if (opt.normalize == Normalize::kNone) {
    r.run_scale = static_cast<double>(r.weight);
    r.norm_variance = squares;
  } else if (opt.normalize == Normalize::kSpan) {
    for (const Span* s : counted) r.norm[blockOf(s->end_ns)] += 1.0;
    r.spans = counted.size();
  }
  r.norm_total = 0;
  for (double d : r.norm) r.norm_total += d;
  return r;
}

namespace {

// One run's estimate in the diff's unit (before the side's scale).
stats::Estimate runEstimate(const PreparedRun& run, std::span<const double> blocks) {
  stats::Estimate e = stats::batchMeans(blocks, run.norm);
  if (run.norm_variance > 0 && run.norm_total > 0) {
    // A share times the total: the total's own noise, in share units.
    const double rel = e.value / run.norm_total;
    e = stats::withVariance(e, rel * rel * run.norm_variance, stats::kInfinity);
  }
  e.value *= run.run_scale;
  e.variance *= run.run_scale * run.run_scale;
  return e;
}

}  // namespace

stats::Estimate sideEstimate(std::span<const PreparedRun> runs,
                             std::span<const std::span<const double>> blocks, double scale) {
  stats::Estimate e;
  if (runs.size() == 1) {
    e = runEstimate(runs[0], blocks[0]);
  } else {
    // The runs' spread, never below what their own noise gives the mean.
    const auto n = static_cast<double>(runs.size());
    std::vector<double> values(runs.size());
    stats::Estimate within;
    within.df = stats::kInfinity;
    for (size_t r = 0; r < runs.size(); ++r) {
      const stats::Estimate own = runEstimate(runs[r], blocks[r]);
      values[r] = own.value;
      within = stats::withVariance(within, own.variance / (n * n), own.df);
    }
    e = stats::acrossRuns(values, within.variance, within.df);
  }
  e.value *= scale;
  e.variance *= scale * scale;
  e.squares *= scale * scale;
  e.within *= scale * scale;
  return e;
}

Verdict measureVerdict(const DiffMeasure& m, double min_change) {
  if (!m.discovery || std::fabs(m.change) < min_change || m.change == 0) return Verdict::kSame;
  return m.change > 0 ? Verdict::kSlower : Verdict::kFaster;
}

void judge(DiffMeasure& m, const stats::Estimate& base, const stats::Estimate& next) {
  const stats::Comparison c = stats::compare(base, next);
  m.tested = true;
  m.change = m.next - m.base;
  m.se = c.se;
  m.df = c.df;
  m.p = c.p;
}

}  // namespace strobe::model
