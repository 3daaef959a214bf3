#include "output/stack_completeness.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/aggregate.hpp"
#include "model/completeness.hpp"
#include "model/measure.hpp"
#include "output/text_report.hpp"

namespace strobe::output {
namespace {

constexpr uint32_t kMaxStackCopy = 65528;

std::string bytesText(uint32_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{}-byte", bytes);
}

}  // namespace

std::string completenessShare(uint64_t part, uint64_t total) {
  const double v = 100.0 * static_cast<double>(part) / static_cast<double>(total);
  if (part > 0 && v < 0.1) return "<0.1%";
  if (part < total && v > 99.9) return ">99.9%";
  return fmt::format("{:.1f}%", v);
}

std::string stackCompletenessLine(const model::Profile& p) {
  const model::StackCompleteness c = model::stackCompleteness(p);
  if (c.total == 0) return {};
  auto pct = [&](uint64_t n) { return completenessShare(n, c.total); };
  const model::Meta& m = p.meta();
  // Advice on -g is for `strobe record` and `top`; libstrobe's profiles
  // (no target) have no -g to change.
  const std::string try_auto = m.target.empty() ? "" : ": try -g auto";
  // The view's time (CPU, off-CPU, or both in the wall view) or the event's count.
  const model::Measure measure = model::measureOf(p);
  const std::string of =
      !model::isTimeEvent(m.event)        ? fmt::format("the sampled {}", model::eventUnit(m.event))
      : measure.view == model::View::kCpu ? std::string("the sampled CPU")
                                          : fmt::format("the sampled {} time", measure.label);
  std::string line = fmt::format("{} of {} reached the thread's entry", pct(c.reached), of);
  if (c.missing_caller > 0) {
    line += fmt::format(
        "; {} skipped the caller of a function without a frame pointer ([missing caller]){}",
        pct(c.missing_caller), try_auto);
  }
  if (c.stack_copy > 0) {
    const uint32_t copy = m.stack_copy_bytes;
    line += fmt::format("; {} truncated at the {} stack copy", pct(c.stack_copy),
                        copy != 0 ? bytesText(copy) : "end of the");
    if (copy != 0 && copy < kMaxStackCopy) {
      const uint32_t next = std::min<uint32_t>(copy * 2, kMaxStackCopy);
      line += fmt::format(": try -g {},{}", m.call_graph == "auto" ? "auto" : "dwarf", next);
    }
  }
  if (c.no_cfi > 0) {
    line += fmt::format("; {} stopped at code without unwind information", pct(c.no_cfi));
  }
  if (c.bad_frame > 0) {
    line += fmt::format("; {} stopped at an unmapped or unreadable frame", pct(c.bad_frame));
  }
  if (c.unknown_entry > 0) {
    line += fmt::format("; {} ended at an outermost frame that is no known thread entry",
                        pct(c.unknown_entry));
  }
  if (c.ended > 0) {
    if (m.call_graph == "none") {
      line += fmt::format("; {} have no call stack (-g none)", pct(c.ended));
    } else if (m.call_graph == "fp") {
      line +=
          fmt::format("; {} ended early (broken frame-pointer chain){}", pct(c.ended), try_auto);
    } else if (m.call_graph == "dwarf" || m.call_graph == "auto") {
      line += fmt::format("; {} ended early in the frame-pointer chain", pct(c.ended));
    } else {
      line += fmt::format("; {} ended early", pct(c.ended));
    }
  }
  if (c.no_stack > 0) {
    // No report draws these: said apart, not among the shares above.
    line += fmt::format("; not counted: {} with no stack (off CPU since before recording began)",
                        formatWeight(c.no_stack, measure));
  }
  return line;
}

}  // namespace strobe::output
