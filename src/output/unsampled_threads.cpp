#include "output/unsampled_threads.hpp"

#include <fmt/format.h>

#include <span>

#include "model/aggregate.hpp"
#include "model/measure.hpp"
#include "output/text_report.hpp"

namespace strobe::output {

std::string unsampledLine(const model::Meta& m, uint64_t sampled) {
  if (m.unsampled_threads == 0 && m.unsampled_count * 100 <= sampled) return {};
  const bool time = model::isTimeEvent(m.event);
  const std::string amount =
      time ? fmt::format("{} of CPU", formatDuration(m.unsampled_count))
           : fmt::format("{} {}", m.unsampled_count, model::eventUnit(m.event));
  // exclude_kernel drops the samples that land in the kernel, while the
  // count goes on: where kernel time was not sampled, a thread whose CPU is
  // all in system calls is unsampled too.
  const char* kernel = m.kernel_time != 0 ? "" : ", or only in the kernel (not sampled here)";
  const std::string uncovered =
      fmt::format("{} that the kernel counted {} no sample", amount, time ? "has" : "have");
  if (m.unsampled_threads == 0) {
    return fmt::format("{} (the last part of a sampling period of each thread{})", uncovered,
                       m.kernel_time != 0 ? "" : ", and time in the kernel (not sampled here)");
  }
  std::string period;
  if (m.sample_period != 0) {
    period = fmt::format("{} {}", m.sample_period, model::eventUnit(m.event));
  } else if (m.frequency != 0 && time) {
    period =
        fmt::format("{} at {} Hz", formatDuration(1'000'000'000ULL / m.frequency), m.frequency);
  } else {
    period = fmt::format("1/{} s of events", m.frequency);
  }
  const std::string threads =
      m.unsampled_threads == 1 ? "1 thread" : fmt::format("{} threads", m.unsampled_threads);
  return fmt::format(
      "{} exited without a sample: {} less than one sampling period ({}){}; {} in all (theirs, "
      "and the last part of a period of every other thread)",
      threads, m.unsampled_threads == 1 ? "it ran" : "each ran", period, kernel, uncovered);
}

std::string throttledLine(const model::Meta& m) {
  if (m.throttle_events == 0) return {};
  std::string line =
      fmt::format("the kernel throttled sampling {} time{}, for {} in all", m.throttle_events,
                  m.throttle_events == 1 ? "" : "s", formatDuration(m.throttled_ns));
  if (m.throttle_weighted_ns != 0) {
    line += fmt::format(
        "; {} of CPU that went unsampled then is weighted onto the sample each throttle began "
        "with",
        formatDuration(m.throttle_weighted_ns));
  }
  return line;
}

namespace {

// Whose CPU target_cpu_ns is.
std::string targetOwner(const model::Meta& m) {
  if (m.target == "command") return "the command's";
  if (m.target.rfind("pid", 0) == 0 && m.target.find(',') != std::string::npos) {
    return "the processes'";
  }
  return "the process's";
}

}  // namespace

std::string sampledCpuText(const model::Profile& p) {
  const model::Meta& m = p.meta();
  // CPU samples only: off-CPU intervals (record --off-cpu) are not CPU the
  // target used, and wall-mode samples (libstrobe) are not CPU time at all.
  if (model::kindOfEvent(m.event) != model::SampleKind::kCpu) {
    return formatDuration(model::totals(p).weight);
  }
  std::string sampled =
      formatDuration(model::timeSplit(std::span<const model::Sample>(p.samples())).cpu_ns);
  if (m.target_cpu_ns == 0) return sampled;
  return fmt::format("{} of {} {}", sampled, targetOwner(m), formatDuration(m.target_cpu_ns));
}

std::string kernelTimeLine(const model::Meta& m) {
  if (m.kernel_refused.empty()) return {};
  if (m.target_system_ns != 0 && m.target_cpu_ns != 0 && model::isTimeEvent(m.event)) {
    return fmt::format("user time only: {} of {} {} CPU was in the kernel and not sampled ({})",
                       formatDuration(m.target_system_ns), targetOwner(m),
                       formatDuration(m.target_cpu_ns), m.kernel_refused);
  }
  return fmt::format("user time only: time in the kernel was not sampled ({})", m.kernel_refused);
}

std::string refusedThreadsLine(const model::Profile& p) {
  const model::Meta& m = p.meta();
  if (m.refused_threads == 0) return {};
  std::string line = fmt::format(
      "{} never sampled: {}",
      m.refused_threads == 1 ? "1 thread was" : fmt::format("{} threads were", m.refused_threads),
      m.refused_reason.empty() ? "the engine refused it" : m.refused_reason);
  if (m.target_cpu_ns != 0 && model::isTimeEvent(m.event)) {
    line += fmt::format("; the process ran {} of CPU, {} of it sampled",
                        formatDuration(m.target_cpu_ns), formatDuration(model::totals(p).weight));
  }
  return line;
}

}  // namespace strobe::output
