#include "tui/snapshot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "base/terminal_text.hpp"
#include "model/measure.hpp"

#include "model/module_path.hpp"
#include "output/text_report.hpp"

namespace strobe::tui {
namespace {

std::string locationOf(const model::TopRow& r, model::GroupBy by) {
  if (by == model::GroupBy::kModule) return terminalSafe(r.module_path);
  if (by == model::GroupBy::kThread) return {};
  if (r.file.empty()) return terminalSafe(r.module);
  if (r.line == 0) return terminalSafe(model::baseName(r.file));
  return fmt::format("{}:{}", terminalSafe(model::baseName(r.file)), r.line);
}

}  // namespace

std::vector<model::Sample> samplesInWindow(const model::Profile& p, uint64_t elapsed_ns,
                                           uint64_t window_ns) {
  if (window_ns == 0 || window_ns >= elapsed_ns) return p.samples();
  const uint64_t since = elapsed_ns - window_ns;
  std::vector<model::Sample> out;
  for (const model::Sample& s : p.samples()) {
    if (s.time_ns >= since) {
      out.push_back(s);
    } else if (s.kind == model::SampleKind::kOffCpu && s.time_ns + s.weight > since) {
      model::Sample clipped = s;
      clipped.weight = s.time_ns + s.weight - since;
      clipped.time_ns = since;
      out.push_back(clipped);
    }
  }
  return out;
}

Snapshot buildSnapshot(const model::Profile& p, const SnapshotOptions& opt,
                       const SessionStatus& status) {
  Snapshot snap;
  snap.target = output::formatTarget(p.meta());
  snap.elapsed_ns = status.elapsed_ns;
  snap.window_ns = opt.window_ns;
  snap.span_ns =
      opt.window_ns != 0 && opt.window_ns < status.elapsed_ns ? opt.window_ns : status.elapsed_ns;
  snap.lost = status.lost;
  const model::View view = opt.view != model::View::kAuto ? opt.view : model::viewOf(p);
  const model::Measure measure = model::measureOf(view, p.meta().event);
  snap.unit = measure.time() ? "ns" : measure.count_unit;
  snap.label = measure.label;
  snap.by = opt.by;

  // The view's samples, the open off-CPU intervals with them.
  std::vector<model::Sample> selected;
  std::span<const model::Sample> samples(p.samples());
  const bool all_in_view =
      status.open_off_cpu.empty() &&
      std::all_of(p.samples().begin(), p.samples().end(),
                  [&](const model::Sample& s) { return model::inView(view, s.kind); });
  if (opt.window_ns != 0 || !all_in_view) {
    selected =
        opt.window_ns != 0 ? samplesInWindow(p, status.elapsed_ns, opt.window_ns) : p.samples();
    const uint64_t since = snap.elapsed_ns - snap.span_ns;
    for (model::Sample s : status.open_off_cpu) {
      if (s.time_ns + s.weight <= since) continue;
      if (s.time_ns < since) {
        s.weight = s.time_ns + s.weight - since;
        s.time_ns = since;
      }
      selected.push_back(s);
    }
    std::erase_if(selected, [&](const model::Sample& s) { return !model::inView(view, s.kind); });
    samples = selected;
  }
  if (view == model::View::kWall) {
    const model::TimeSplit split = model::timeSplit(samples);
    snap.cpu_ns = split.cpu_ns;
    snap.off_cpu_ns = split.off_cpu_ns;
  }
  snap.totals = model::totals(samples);
  if (snap.span_ns != 0) {
    snap.samples_per_s =
        static_cast<double>(snap.totals.samples) / (static_cast<double>(snap.span_ns) / 1e9);
  }
  std::vector<model::TopRow> rows = model::topTable(p, samples, opt.by);
  if (rows.size() > opt.top) {
    snap.hidden_rows = rows.size() - opt.top;
    rows.resize(opt.top);
  }
  snap.rows.reserve(rows.size());
  const bool sampled = model::sharesAreSampled(samples);
  for (const model::TopRow& r : rows) {
    SnapshotRow row;
    row.self_pct = output::sharePct(r.self, snap.totals.weight);
    row.total_pct = output::sharePct(r.total, snap.totals.weight);
    row.samples = r.self_samples;
    row.name = terminalSafe(r.function);  // shown on a terminal, batch or curses
    row.location = locationOf(r, opt.by);
    const uint64_t basis = model::shareSamples(r);
    row.few_samples = sampled && basis < model::kFewSamples;
    if (row.few_samples) {
      snap.few_samples_error_pct =
          std::max(snap.few_samples_error_pct, model::shareStdErrorPct(basis, snap.totals.samples));
    }
    snap.rows.push_back(std::move(row));
  }
  return snap;
}

bool parseGroupBy(std::string_view name, model::GroupBy& by) {
  std::optional<model::GroupBy> g = model::parseGroupBy(name);
  // top has no file, process or address rows (see USAGE.md).
  if (!g || *g == model::GroupBy::kFile || *g == model::GroupBy::kProcess ||
      *g == model::GroupBy::kAddress) {
    return false;
  }
  by = *g;
  return true;
}

}  // namespace strobe::tui
