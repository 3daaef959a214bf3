#include "output/stack_completeness.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/completeness.hpp"

namespace strobe::output {
namespace {

constexpr uint32_t kMaxStackCopy = 65528;

std::string bytesText(uint32_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{}-byte", bytes);
}

}  // namespace

std::string stackCompletenessLine(const model::Profile& p) {
  const model::StackCompleteness c = model::stackCompleteness(p);
  if (c.samples == 0) return {};
  // "12.3%"; a share too small to show as 0.1% is "<0.1%", never "0.0%".
  auto pct = [&](uint64_t n) {
    const double v = 100.0 * static_cast<double>(n) / static_cast<double>(c.samples);
    if (n > 0 && v < 0.1) return std::string("<0.1%");
    if (n < c.samples && v > 99.9) return std::string(">99.9%");
    return fmt::format("{:.1f}%", v);
  };
  const model::Meta& m = p.meta();
  std::string line = fmt::format("{} of samples reached the thread's entry", pct(c.reached));
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
  if (c.ended > 0) {
    if (m.call_graph == "none") {
      line += fmt::format("; {} have no call stack (-g none)", pct(c.ended));
    } else if (m.call_graph == "fp") {
      line +=
          fmt::format("; {} ended early (broken frame-pointer chain): try -g dwarf", pct(c.ended));
    } else if (m.call_graph == "dwarf" || m.call_graph == "auto") {
      line += fmt::format("; {} ended early in the frame-pointer chain", pct(c.ended));
    } else {
      line += fmt::format("; {} ended early", pct(c.ended));
    }
  }
  return line;
}

}  // namespace strobe::output
