#include "tui/text_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "output/text_report.hpp"

namespace strobe::tui {
namespace {

std::string fitName(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

const char* heading(model::GroupBy by) {
  switch (by) {
    case model::GroupBy::kModule:
      return "MODULE";
    case model::GroupBy::kThread:
      return "THREAD";
    case model::GroupBy::kLine:
      return "LINE";
    default:
      return "FUNCTION";
  }
}

}  // namespace

std::string headerLine(const Snapshot& s) {
  std::string sampled = s.unit == "ns"
                            ? fmt::format("sampled {} {}", s.label.empty() ? "CPU" : s.label,
                                          output::formatDuration(s.totals.weight))
                            : fmt::format("sampled {} {}", s.totals.weight, s.unit);
  if (s.off_cpu_ns != 0) {
    sampled += fmt::format(" (CPU {} + off-CPU {})", output::formatDuration(s.cpu_ns),
                           output::formatDuration(s.off_cpu_ns));
  }
  std::string span =
      s.window_ns == 0 ? "cumulative" : "last " + output::formatDuration(s.window_ns);
  return fmt::format(
      "strobe top: {}   elapsed {}   {}   {:.0f} samples/s   {} lost   {} threads   {}", s.target,
      output::formatDuration(s.elapsed_ns), sampled, s.samples_per_s, s.lost, s.totals.threads,
      span);
}

std::vector<std::string> tableLines(const Snapshot& s, size_t max_name) {
  std::vector<std::string> out;
  const char* name_heading = heading(s.by);
  size_t width = std::string_view(name_heading).size();
  for (const SnapshotRow& r : s.rows) width = std::max(width, std::min(r.name.size(), max_name));
  const bool located = s.by != model::GroupBy::kModule && s.by != model::GroupBy::kThread;
  std::string head =
      fmt::format("{:>6}  {:>6}  {:>8}  {:<{}}", "SELF%", "TOTAL%", "SAMPLES", name_heading, width);
  if (located) head += "  LOCATION";
  out.push_back(std::move(head));
  for (const SnapshotRow& r : s.rows) {
    std::string line = fmt::format("{:>5.1f}%  {:>5.1f}%  {:>8}  {:<{}}", r.self_pct, r.total_pct,
                                   r.samples, fitName(r.name, width), width);
    if (located) line += "  " + r.location;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(std::move(line));
  }
  if (s.rows.empty()) out.emplace_back("(no samples)");
  return out;
}

std::string formatSnapshot(const Snapshot& s) {
  std::string out = headerLine(s) + "\n";
  for (const std::string& line : tableLines(s)) out += line + "\n";
  return out;
}

}  // namespace strobe::tui
