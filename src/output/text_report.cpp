#include "output/text_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/terminal_text.hpp"
#include "output/stack_completeness.hpp"
#include "output/unsampled_threads.hpp"

namespace strobe::output {
namespace {

constexpr size_t kMaxNameWidth = 60;

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string locationOf(const model::TopRow& r) {
  if (r.file.empty()) return terminalSafe(r.module);
  if (r.line == 0) return terminalSafe(baseName(r.file));
  return fmt::format("{}:{}", terminalSafe(baseName(r.file)), r.line);
}

std::string fitName(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
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
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    const std::string a = terminalSafe(arg);
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

void writeTopTable(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows = model::topTable(p, opt.by, opt.no_inline);
  for (model::TopRow& r : rows) r.function = terminalSafe(r.function);
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
  size_t width = std::string_view(heading).size();
  for (const auto& r : rows) width = std::max(width, std::min(r.function.size(), kMaxNameWidth));

  const bool per_task = opt.by == model::GroupBy::kThread || opt.by == model::GroupBy::kProcess;
  // Weights are ns of CPU for clock events, counts of the event otherwise.
  const bool time = model::isTimeEvent(p.meta().event);
  const std::string_view unit = model::eventUnit(p.meta().event);
  fmt::print(out, "{:>6}  {:>6}  {:>9}  {:<{}}  {}\n", "SELF%", "TOTAL%",
             time ? "SELF-TIME" : "SELF", heading, width, per_task ? "SAMPLES" : "LOCATION");
  for (const auto& r : rows) {
    fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>9}  {:<{}}  {}\n", sharePct(r.self, t.weight),
               sharePct(r.total, t.weight),
               time ? formatDuration(r.self) : fmt::format("{} {}", r.self, unit),
               fitName(r.function, width), width,
               per_task ? std::to_string(r.self_samples)
               : opt.by == model::GroupBy::kFile || opt.by == model::GroupBy::kModule
                   ? std::string()
                   : locationOf(r));
  }
  if (rows.empty()) fmt::print(out, "(no samples)\n");
}

void writeTextReport(const model::Profile& p, const TextOptions& opt, const std::string& source,
                     std::FILE* out) {
  if (opt.header) {
    const model::Meta& m = p.meta();
    const model::Totals t = model::totals(p);
    double cpu_s = static_cast<double>(t.weight) / 1e9;
    double rate = cpu_s > 0 ? static_cast<double>(t.samples) / cpu_s : 0.0;
    fmt::print(out, "recording: {}\n", terminalSafe(source));
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
    if (!m.stopped_reason.empty()) {
      fmt::print(out, "stopped:   {}\n", terminalSafe(m.stopped_reason));
    }
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
