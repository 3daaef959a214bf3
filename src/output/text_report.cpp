#include "output/text_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "base/terminal_text.hpp"
#include "model/module_path.hpp"
#include "output/span_table.hpp"
#include "output/stack_completeness.hpp"
#include "output/text_width.hpp"
#include "output/unsampled_threads.hpp"

namespace strobe::output {
namespace {

std::string locationOf(const model::TopRow& r, model::GroupBy by) {
  switch (by) {
    case model::GroupBy::kModule:
      return terminalSafe(r.module_path);
    case model::GroupBy::kFile:
    case model::GroupBy::kThread:
    case model::GroupBy::kProcess:
      return {};
    default:
      break;
  }
  if (r.file.empty()) return terminalSafe(r.module);
  if (r.line == 0) return terminalSafe(model::baseName(r.file));
  return fmt::format("{}:{}", terminalSafe(model::baseName(r.file)), r.line);
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
  if (m.target.rfind("pid", 0) == 0) {
    // A running process's command line as ps shows it: the arguments joined
    // by spaces (a program may have rewritten them into a title).
    std::string args;
    for (const std::string& a : m.command) args += (args.empty() ? "" : " ") + a;
    return fmt::format("{} ({})", m.target, args);
  }
  return formatCommand(m.command);
}

std::string fewSamplesNote(double max_error_pct) {
  // Among many samples a rare function's error is small: "+-0.0" would read
  // as none.
  const std::string error = max_error_pct >= 0.1    ? fmt::format("about +-{:.1f}", max_error_pct)
                            : max_error_pct >= 0.01 ? fmt::format("about +-{:.2f}", max_error_pct)
                                                    : std::string("less than +-0.01");
  return fmt::format(
      "* fewer than {} samples: such a share is uncertain by {} points (one binomial standard "
      "error); record longer or at a higher -F",
      model::kFewSamples, error);
}

void writeTopTable(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  if (opt.by == model::GroupBy::kAddress) return writeAddressTable(p, opt, out);
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows = model::topTable(p, opt.by, opt.no_inline);
  if (opt.threshold_pct > 0) {
    std::erase_if(rows, [&](const model::TopRow& r) {
      return sharePct(r.total, t.weight) < opt.threshold_pct;
    });
  }
  if (rows.size() > opt.top) rows.resize(opt.top);
  // Only the rows shown (a profile may have tens of thousands).
  for (model::TopRow& r : rows) r.function = terminalSafe(r.function);

  const char* heading = "FUNCTION";
  if (opt.by == model::GroupBy::kFile) heading = "FILE";
  if (opt.by == model::GroupBy::kModule) heading = "MODULE";
  if (opt.by == model::GroupBy::kThread) heading = "THREAD";
  if (opt.by == model::GroupBy::kProcess) heading = "PROCESS";

  const bool per_task = opt.by == model::GroupBy::kThread || opt.by == model::GroupBy::kProcess;
  // Weights are in the view's unit: time, or counts of the event.
  const model::Measure m = model::measureOf(p);
  // A thread's (process's) samples all hold it: TOTAL% would repeat SELF%.
  // In the CPU view its CPU use over the recording's duration says more
  // (100%: one CPU busy throughout, as top shows it).
  const bool cpu_column =
      per_task && m.view == model::View::kCpu && m.time() && p.meta().duration_ns > 0;
  std::vector<std::string> locations;
  std::vector<std::string> selfs;
  selfs.reserve(rows.size());
  size_t self_width = 9;
  size_t loc_width = 0;
  size_t name_width = std::string_view(heading).size();
  for (const auto& r : rows) {
    locations.push_back(per_task ? std::to_string(r.self_samples) : locationOf(r, opt.by));
    loc_width = std::max(loc_width, locations.back().size());
    name_width = std::max(name_width, r.function.size());
    selfs.push_back(formatWeight(r.self, m));
    self_width = std::max(self_width, selfs.back().size());
  }
  // SELF% TOTAL% SELF-TIME and their gaps take 18 columns and the self
  // column's width; the name gets what the location leaves, at least 20.
  const size_t fixed = 18 + self_width;
  if (opt.width != kNoWidthLimit) {
    size_t room = opt.width > fixed + 2 + loc_width ? opt.width - fixed - 2 - loc_width : 0;
    name_width = std::min(name_width, std::max<size_t>(room, 20));
  }
  fmt::print(out, "{:>6}  {:>6}  {:>{}}  {:<{}}  {}\n", "SELF%", cpu_column ? "CPU%" : "TOTAL%",
             m.time() ? "SELF-TIME" : "SELF", self_width, heading, name_width,
             per_task ? "SAMPLES" : "LOCATION");
  const bool sampled = model::sharesAreSampled(p.samples());
  double max_error = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::TopRow& r = rows[i];
    const uint64_t basis = model::shareSamples(r);
    const bool few = sampled && basis < model::kFewSamples;
    if (few) max_error = std::max(max_error, model::shareStdErrorPct(basis, t.samples));
    std::string second = cpu_column
                             ? fmt::format("{:>5.1f}%", sharePct(r.total, p.meta().duration_ns))
                             : fmt::format("{:>5.1f}%", sharePct(r.total, t.weight));
    std::string line = fmt::format(
        "{:>5.1f}%{} {:>6}  {:>{}}  {:<{}}  {}", sharePct(r.self, t.weight), few ? '*' : ' ',
        second, selfs[i], self_width, fitMiddle(r.function, name_width), name_width, locations[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  }
  if (rows.empty()) fmt::print(out, "(no samples)\n");
  if (max_error >= 0) fmt::print(out, "{}\n", fewSamplesNote(max_error));
}

std::string formatWeight(uint64_t weight, const model::Measure& m) {
  if (m.time()) return formatDuration(weight);
  return fmt::format("{} {}", weight, m.count_unit);
}

std::string offCpuHeader(const model::Profile& recording, size_t max_threads) {
  const model::Meta& m = recording.meta();
  const auto samples = std::span<const model::Sample>(recording.samples());
  const model::TimeSplit all = model::timeSplit(samples);
  if (m.off_cpu == 0 && all.off_cpu_samples == 0) return {};
  using model::OffCpuReason;
  auto reason = [&](OffCpuReason r) { return all.by_reason[static_cast<size_t>(r)]; };
  // The CPU part next to the target's own CPU, as the header of a CPU-only
  // recording gives it ("1.90 s of the command's 1.93 s").
  std::string s =
      fmt::format("time:      CPU sampled {} + off-CPU {} = wall {}\n", sampledCpuText(recording),
                  formatDuration(all.off_cpu_ns), formatDuration(all.wallNs()));
  // Blocked time by reason, then the run queue, reported apart.
  std::string blocked;
  for (OffCpuReason r : {OffCpuReason::kSleep, OffCpuReason::kIo, OffCpuReason::kLock,
                         OffCpuReason::kOther, OffCpuReason::kUnknown}) {
    if (reason(r) == 0) continue;
    blocked += fmt::format("{}{} {}", blocked.empty() ? "" : ", ", model::reasonName(r),
                           formatDuration(reason(r)));
  }
  s += fmt::format("off-CPU:   blocked {}{}{}; runnable, waiting for a CPU {}\n",
                   formatDuration(all.blockedNs()), blocked.empty() ? "" : " (",
                   blocked.empty() ? "" : blocked + ")",
                   formatDuration(reason(OffCpuReason::kPreempted)));
  std::string missing =
      fmt::format("{} {} shorter than {} not recorded ({} in all)", m.off_cpu_short_count,
                  m.off_cpu_short_count == 1 ? "interval" : "intervals",
                  formatDuration(m.off_cpu_min_ns), formatDuration(m.off_cpu_short_ns));
  missing += fmt::format("; {} switch records lost", m.switch_records_lost);
  if (m.switch_unpaired != 0) {
    missing += fmt::format(", {} switches unpaired (their interval unknown)", m.switch_unpaired);
  }
  s += "           " + missing + "\n";
  const auto per_thread = model::timeSplitByThread(samples);
  size_t name_width = 6;
  std::vector<std::string> names;
  for (size_t i = 0; i < per_thread.size() && i < max_threads; ++i) {
    const model::Thread* t = recording.findThread(per_thread[i].first);
    names.push_back(fmt::format("{} ({})", t != nullptr && !t->name.empty() ? t->name : "thread",
                                per_thread[i].first));
    name_width = std::min<size_t>(std::max(name_width, names.back().size()), 40);
  }
  s += fmt::format("  {:<{}}  {:>9}  {:>9}  {:>9}  {:>9}\n", "THREAD", name_width, "CPU", "OFF-CPU",
                   "RUNNABLE", "WALL");
  for (size_t i = 0; i < names.size(); ++i) {
    const model::TimeSplit& t = per_thread[i].second;
    s += fmt::format("  {:<{}}  {:>9}  {:>9}  {:>9}  {:>9}\n", fitMiddle(names[i], name_width),
                     name_width, formatDuration(t.cpu_ns), formatDuration(t.blockedNs()),
                     formatDuration(t.by_reason[static_cast<size_t>(OffCpuReason::kPreempted)]),
                     formatDuration(t.wallNs()));
  }
  if (per_thread.size() > names.size()) {
    s += fmt::format("  ({} more threads)\n", per_thread.size() - names.size());
  }
  return s;
}

void writeTextReport(const model::Profile& p, const TextOptions& opt, const std::string& source,
                     std::FILE* out) {
  if (opt.header) {
    const model::Meta& m = p.meta();
    const model::Totals t = model::totals(p);
    const model::Measure measure = model::measureOf(p);
    const model::Profile& recording = opt.recording != nullptr ? *opt.recording : p;
    const model::TimeSplit split = model::timeSplit(std::span<const model::Sample>(p.samples()));
    fmt::print(out, "recording: {}\n", terminalSafe(source));
    fmt::print(out, "command:   {}\n", formatTarget(m));
    if (!m.source.empty()) {
      // Recorded by another profiler (strobe import): by what, and where.
      fmt::print(out, "source:    {}\n", terminalSafe(m.source));
      std::string machine = m.hostname;
      for (const std::string* part : {&m.kernel, &m.cpu}) {
        if (part->empty()) continue;
        if (!machine.empty()) machine += ", ";
        machine += (part == &m.kernel ? "Linux " : "") + *part;
      }
      if (!machine.empty()) fmt::print(out, "machine:   {}\n", terminalSafe(machine));
    }
    if (recording.meta().off_cpu != 0) {
      // Off-CPU time was recorded: the view says which time the table adds.
      const char* what = measure.view == model::View::kWall ? " (CPU + off-CPU, summed per stack)"
                         : measure.view == model::View::kOffCpu ? " (time threads spent off CPU)"
                                                                : " (CPU time only)";
      fmt::print(out, "duration:  {}   {}: {}   threads: {}\n", formatDuration(m.duration_ns),
                 measure.label, formatDuration(t.weight), t.threads);
      fmt::print(out, "view:      {}{}; --view cpu|off-cpu|wall\n", model::viewName(measure.view),
                 what);
    } else if (measure.view == model::View::kCpu) {
      // The sampled CPU next to the target's own, so a gap shows.
      fmt::print(out, "duration:  {}   CPU sampled: {}   threads: {}\n",
                 formatDuration(m.duration_ns), sampledCpuText(p), t.threads);
    } else if (measure.time()) {
      fmt::print(out, "duration:  {}   {} sampled: {}   threads: {}\n",
                 formatDuration(m.duration_ns), measure.label, formatDuration(t.weight), t.threads);
    } else {
      fmt::print(out, "duration:  {}   {}: {}   threads: {}\n", formatDuration(m.duration_ns),
                 m.event, formatWeight(t.weight, measure), t.threads);
    }
    if (measure.time() && m.sample_period == 0) {
      // The rate: samples per second of the sampled clock (CPU time, or
      // wall time in libstrobe's wall mode), off-CPU intervals apart.
      const bool wall_clock = model::kindOfEvent(m.event) == model::SampleKind::kWall;
      const uint64_t clock_ns = wall_clock ? t.weight : split.cpu_ns;
      const uint64_t clock_samples = wall_clock ? t.samples : split.cpu_samples;
      const double secs = static_cast<double>(clock_ns) / 1e9;
      const double rate = secs > 0 ? static_cast<double>(clock_samples) / secs : 0.0;
      std::string count = fmt::format("{} ({} lost)", clock_samples, m.lost_samples);
      if (split.off_cpu_samples != 0) {
        count += fmt::format(" + {} off-CPU intervals", split.off_cpu_samples);
      }
      fmt::print(out, "samples:   {}   event: {} at {} Hz   rate: {:.0f} per {}-second\n", count,
                 m.event, m.frequency, rate, wall_clock ? "thread" : "CPU");
    } else {
      // Counting events: weights are counts of the event, in its unit.
      const std::string_view unit = model::eventUnit(m.event);
      std::string every = m.sample_period != 0 ? fmt::format("every {} {}", m.sample_period, unit)
                                               : fmt::format("at {} Hz", m.frequency);
      fmt::print(out, "samples:   {} ({} lost)   event: {} {}   weight: {}\n", t.samples,
                 m.lost_samples, m.event, every, formatWeight(t.weight, measure));
    }
    if (std::string s = kernelTimeLine(m); !s.empty()) {
      fmt::print(out, "kernel:    {}; hint: {}\n", s, kKernelTimeHint);
    }
    fmt::print(out, "{}", offCpuHeader(recording));
    if (std::string s = stackCompletenessLine(p); !s.empty()) fmt::print(out, "stacks:    {}\n", s);
    if (std::string s = unsampledLine(m, t.weight); !s.empty())
      fmt::print(out, "unsampled: {}\n", s);
    if (std::string s = throttledLine(m); !s.empty()) fmt::print(out, "throttled: {}\n", s);
    if (std::string s = refusedThreadsLine(p); !s.empty()) fmt::print(out, "refused:   {}\n", s);
    if (!m.stopped_reason.empty()) {
      fmt::print(out, "stopped:   {}\n", terminalSafe(m.stopped_reason));
    }
    if (std::string s = spansLine(p); !s.empty()) fmt::print(out, "spans:     {}\n", s);
    if (!opt.span_selection.empty()) fmt::print(out, "span:      {}\n", opt.span_selection);
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
