#include "output/text_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "output/stack_completeness.hpp"
#include "output/text_width.hpp"
#include "output/unsampled_threads.hpp"

namespace strobe::output {
namespace {

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string locationOf(const model::TopRow& r, model::GroupBy by) {
  switch (by) {
    case model::GroupBy::kModule:
      return r.module_path;
    case model::GroupBy::kFile:
    case model::GroupBy::kThread:
    case model::GroupBy::kProcess:
      return {};
    default:
      break;
  }
  if (r.file.empty()) return r.module;
  if (r.line == 0) return baseName(r.file);
  return fmt::format("{}:{}", baseName(r.file), r.line);
}

}  // namespace

double sharePct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string formatDuration(uint64_t ns) {
  if (ns >= 1'000'000'000ULL) return fmt::format("{:.2f} s", static_cast<double>(ns) / 1e9);
  if (ns >= 1'000'000ULL) return fmt::format("{:.1f} ms", static_cast<double>(ns) / 1e6);
  if (ns == 0) return "0";
  return fmt::format("{} us", ns / 1000);
}

std::string formatCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::string formatTarget(const model::Meta& m) {
  if (m.target == "system") return "the whole system";
  if (m.target.rfind("pid", 0) == 0)
    return fmt::format("{} ({})", m.target, formatCommand(m.command));
  return formatCommand(m.command);
}

std::string fewSamplesNote(double max_error_pct) {
  return fmt::format(
      "* fewer than {} samples: such a share is uncertain by about +-{:.1f} points (one binomial "
      "standard error); record longer or at a higher -F",
      model::kFewSamples, max_error_pct);
}

void writeTopTable(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows = model::topTable(p, opt.by, opt.no_inline);
  if (opt.threshold_pct > 0) {
    std::erase_if(rows, [&](const model::TopRow& r) {
      return sharePct(r.total, t.weight) < opt.threshold_pct;
    });
  }
  if (rows.size() > opt.top) rows.resize(opt.top);

  const char* heading = "FUNCTION";
  if (opt.by == model::GroupBy::kFile) heading = "FILE";
  if (opt.by == model::GroupBy::kModule) heading = "MODULE";
  if (opt.by == model::GroupBy::kThread) heading = "THREAD";
  if (opt.by == model::GroupBy::kProcess) heading = "PROCESS";

  const bool per_task = opt.by == model::GroupBy::kThread || opt.by == model::GroupBy::kProcess;
  // Weights are ns of CPU for clock events, counts of the event otherwise.
  const bool time = model::isTimeEvent(p.meta().event);
  const std::string_view unit = model::eventUnit(p.meta().event);
  // A thread's (process's) samples all hold it: TOTAL% would repeat SELF%.
  // Its CPU use over the recording's duration says more (100%: one CPU
  // busy throughout, as top shows it).
  const bool cpu_column = per_task && time && p.meta().duration_ns > 0;
  std::vector<std::string> locations;
  size_t loc_width = 0;
  size_t name_width = std::string_view(heading).size();
  for (const auto& r : rows) {
    locations.push_back(per_task ? std::to_string(r.self_samples) : locationOf(r, opt.by));
    loc_width = std::max(loc_width, locations.back().size());
    name_width = std::max(name_width, r.function.size());
  }
  // SELF% TOTAL% SELF-TIME and their gaps take 27 columns; the name gets
  // what the location leaves of the width, at least 20.
  constexpr size_t kFixed = 27;
  if (opt.width != kNoWidthLimit) {
    size_t room = opt.width > kFixed + 2 + loc_width ? opt.width - kFixed - 2 - loc_width : 0;
    name_width = std::min(name_width, std::max<size_t>(room, 20));
  }
  fmt::print(out, "{:>6}  {:>6}  {:>9}  {:<{}}  {}\n", "SELF%", cpu_column ? "CPU%" : "TOTAL%",
             time ? "SELF-TIME" : "SELF", heading, name_width, per_task ? "SAMPLES" : "LOCATION");
  double max_error = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::TopRow& r = rows[i];
    const uint64_t basis = model::shareSamples(r);
    const bool few = basis < model::kFewSamples;
    if (few) max_error = std::max(max_error, model::shareStdErrorPct(basis, t.samples));
    std::string second = cpu_column
                             ? fmt::format("{:>5.1f}%", sharePct(r.total, p.meta().duration_ns))
                             : fmt::format("{:>5.1f}%", sharePct(r.total, t.weight));
    std::string line = fmt::format(
        "{:>5.1f}%{} {:>6}  {:>9}  {:<{}}  {}", sharePct(r.self, t.weight), few ? '*' : ' ', second,
        time ? formatDuration(r.self) : fmt::format("{} {}", r.self, unit),
        fitMiddle(r.function, name_width), name_width, locations[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  }
  if (rows.empty()) fmt::print(out, "(no samples)\n");
  if (max_error >= 0) fmt::print(out, "{}\n", fewSamplesNote(max_error));
}

void writeTextReport(const model::Profile& p, const TextOptions& opt, const std::string& source,
                     std::FILE* out) {
  if (opt.header) {
    const model::Meta& m = p.meta();
    const model::Totals t = model::totals(p);
    double cpu_s = static_cast<double>(t.weight) / 1e9;
    double rate = cpu_s > 0 ? static_cast<double>(t.samples) / cpu_s : 0.0;
    fmt::print(out, "recording: {}\n", source);
    fmt::print(out, "command:   {}\n", formatTarget(m));
    fmt::print(out, "duration:  {}   CPU sampled: {}   threads: {}\n",
               formatDuration(m.duration_ns), formatDuration(t.weight), t.threads);
    if (model::isTimeEvent(m.event) && m.sample_period == 0) {
      fmt::print(out,
                 "samples:   {} ({} lost)   event: {} at {} Hz   rate: {:.0f} per CPU-second\n",
                 t.samples, m.lost_samples, m.event, m.frequency, rate);
    } else {
      // Counting events: weights are counts of the event, in its unit.
      const std::string_view unit = model::eventUnit(m.event);
      std::string every = m.sample_period != 0 ? fmt::format("every {} {}", m.sample_period, unit)
                                               : fmt::format("at {} Hz", m.frequency);
      fmt::print(out, "samples:   {} ({} lost)   event: {} ({}) {}   weight: {} {}\n", t.samples,
                 m.lost_samples, m.event, unit, every, t.weight, unit);
    }
    if (std::string s = stackCompletenessLine(p); !s.empty()) fmt::print(out, "stacks:    {}\n", s);
    if (std::string s = unsampledThreadsLine(m); !s.empty()) fmt::print(out, "unsampled: {}\n", s);
    if (std::string s = refusedThreadsLine(p); !s.empty()) fmt::print(out, "refused:   {}\n", s);
    fmt::print(out, "\n");
  }
  if (!opt.callers.empty() || !opt.callees.empty()) {
    if (!opt.callers.empty()) writeCallers(p, opt, opt.callers, false, out);
    if (!opt.callers.empty() && !opt.callees.empty()) fmt::print(out, "\n");
    if (!opt.callees.empty()) writeCallers(p, opt, opt.callees, true, out);
    return;
  }
  if (opt.tree) {
    writeCallTree(p, opt, out);
    return;
  }
  writeTopTable(p, opt, out);
}

}  // namespace strobe::output
