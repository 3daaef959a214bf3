#include "tui/text_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "output/text_report.hpp"
#include "output/text_width.hpp"

namespace strobe::tui {
namespace {

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
  return fmt::format("strobe top: {}   elapsed {}   {}   {:.0f} samples/s   {} lost   {} {}   {}",
                     s.target, output::formatDuration(s.elapsed_ns), sampled, s.samples_per_s,
                     s.lost, s.totals.threads, s.totals.threads == 1 ? "thread" : "threads", span);
}

std::vector<std::string> tableLines(const Snapshot& s, size_t width) {
  std::vector<std::string> out;
  const char* name_heading = heading(s.by);
  const bool located = s.by != model::GroupBy::kThread;
  size_t name_width = std::string_view(name_heading).size();
  size_t loc_width = 0;
  for (const SnapshotRow& r : s.rows) {
    name_width = std::max(name_width, r.name.size());
    loc_width = std::max(loc_width, r.location.size());
  }
  // SELF% TOTAL% SAMPLES and their gaps: 26 columns before the name.
  constexpr size_t kFixed = 26;
  if (width != output::kNoWidthLimit) {
    size_t used = kFixed + (located ? 2 + loc_width : 0);
    name_width = std::min(name_width, std::max<size_t>(width > used ? width - used : 0, 20));
  }
  std::string head = fmt::format("{:>6}  {:>6}  {:>8}  {:<{}}", "SELF%", "TOTAL%", "SAMPLES",
                                 name_heading, name_width);
  if (located) head += "  LOCATION";
  out.push_back(std::move(head));
  for (const SnapshotRow& r : s.rows) {
    std::string line =
        fmt::format("{:>5.1f}%{} {:>5.1f}%  {:>8}  {:<{}}", r.self_pct, r.few_samples ? '*' : ' ',
                    r.total_pct, r.samples, output::fitMiddle(r.name, name_width), name_width);
    if (located) line += "  " + r.location;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(std::move(line));
  }
  if (s.rows.empty()) out.emplace_back("(no samples)");
  if (s.few_samples_error_pct >= 0) out.push_back(output::fewSamplesNote(s.few_samples_error_pct));
  return out;
}

std::string formatSnapshot(const Snapshot& s, size_t width) {
  std::string out = headerLine(s) + "\n";
  for (const std::string& line : tableLines(s, width)) out += line + "\n";
  return out;
}

}  // namespace strobe::tui
