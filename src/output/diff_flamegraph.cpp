// strobe diff's differential flame graph: the merged call tree
// (model/diff_tree.hpp) drawn as report's flame graph SVG is (the same
// script: zoom, search, hover), each frame as wide as its node's width (the
// new run's shape, the work that vanished since the base drawn at its base
// size, outlined dashed) and coloured by its total's change: reds for
// slower, blues for faster, deeper the larger the change is against the
// frame's own time; a neutral grey when `same`. Its hover text has both
// sides' totals and selves, the change and the verdict; data-verdict,
// data-base and data-new carry them for scripts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "output/diff_writers.hpp"
#include "output/flamegraph_writer.hpp"
#include "output/xml_escape.hpp"

namespace strobe::output {
namespace {

// 0.25 for a change barely beyond min-change up to 1 for one as large as
// half of the frame's larger side.
double strength(const model::DiffNode& n) {
  const double larger = std::max(n.base_total, n.next_total);
  if (!(larger > 0)) return 0.25;
  const double rel = std::fabs(n.next_total - n.base_total) / larger;
  return 0.25 + 0.75 * std::min(1.0, 2.0 * rel);
}

std::string diffColor(model::Verdict v, double s) {
  const int fade = static_cast<int>(std::lround(215.0 * (1.0 - s)));
  switch (v) {
    case model::Verdict::kSlower:
      return fmt::format("rgb(255,{},{})", fade, fade);
    case model::Verdict::kFaster:
      return fmt::format("rgb({},{},255)", fade, fade);
    case model::Verdict::kSame:
      break;
  }
  return "rgb(218,218,212)";
}

}  // namespace

Status writeDiffFlamegraph(const model::ProfileDiff& d, const model::DiffTree& t,
                           const DiffReportOptions& opt, std::FILE* out) {
  const model::Measure& m = d.measure;
  const auto& nodes = t.nodes;
  const double total = std::max(nodes[0].width, 1.0);
  const double scale = (kFlameWidth - 2 * kFlamePad) / total;
  std::vector<double> x(nodes.size(), 0);
  uint32_t max_depth = 0;
  for (uint32_t id = 0; id < nodes.size(); ++id) {
    if (nodes[id].width * scale < kFlameMinWidthPx) continue;
    max_depth = std::max(max_depth, nodes[id].depth);
    double at = x[id];
    for (uint32_t c : t.children(id)) {
      x[c] = at;
      at += nodes[c].width;
    }
  }
  const double height = kFlameTop + 16 + (max_depth + 1) * kFlameFrameHeight + kFlameBottom;
  const std::string title =
      opt.title.empty() ? "Differential flame graph (" + m.label + "): red slower, blue faster"
                        : opt.title;
  writeFlamegraphHead(out, height, total, title,
                      "#legend { text-anchor: middle; font-size: 11px; }\n"
                      ".base-only > rect { stroke: rgb(60,60,60); stroke-dasharray: 3,2; }\n",
                      fmt::format("<text id=\"legend\" x=\"{}\" y=\"42\">width: the new run "
                                  "(work only in the base: dashed, at its base size); colour: "
                                  "the change of each frame's total, grey when the same</text>\n",
                                  kFlameWidth / 2));

  std::string line;
  std::string name_xml;
  // Depth first, parents before children, so that each frame's x is known.
  std::vector<uint32_t> todo{0};
  while (!todo.empty()) {
    const uint32_t id = todo.back();
    todo.pop_back();
    const model::DiffNode& n = nodes[id];
    const double w = n.width * scale;
    if (w < kFlameMinWidthPx) continue;
    const std::span<const uint32_t> children = t.children(id);
    for (auto it = children.rbegin(); it != children.rend(); ++it) todo.push_back(*it);
    const model::DiffFrame* f = id == 0 ? nullptr : &t.frames[n.frame];
    const std::string name = f == nullptr ? "all" : f->name;
    name_xml.clear();
    appendXmlEscaped(name_xml, name);
    const double px = kFlamePad + x[id] * scale;
    const double py = height - kFlameBottom - (n.depth + 1) * kFlameFrameHeight;
    const bool base_only = n.next_total == 0 && n.base_total > 0;
    const model::DiffMeasure change{
        .base = n.base_total, .next = n.next_total, .change = n.next_total - n.base_total};
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "<g data-x=\"{:.0f}\" data-w=\"{:.0f}\" data-name=\"{}\" data-verdict=\"{}\" "
                   "data-base=\"{:.0f}\" data-new=\"{:.0f}\"{}>",
                   x[id], n.width, name_xml, model::verdictName(n.verdict), n.base_total,
                   n.next_total, base_only ? " class=\"base-only\"" : "");
    line += "<title>";
    line += name_xml;
    if (f != nullptr && f->inlined) line += " [inlined]";
    std::string text =
        fmt::format(": {} (total: base {}, new {}, {} {}; self: base {}, new {}){}",
                    model::verdictName(n.verdict), diffAmount(n.base_total, m),
                    diffAmount(n.next_total, m), signedAmount(n.next_total - n.base_total, m),
                    changePctText(change), diffAmount(n.base_self, m), diffAmount(n.next_self, m),
                    base_only ? " only in the base" : "");
    appendXmlEscaped(line, text);
    line += "</title>";
    fmt::format_to(std::back_inserter(line),
                   "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" "
                   "rx=\"2\"/><text x=\"{:.2f}\" y=\"{:.1f}\">",
                   px, py, w, kFlameFrameHeight - 1, diffColor(n.verdict, strength(n)), px + 3,
                   py + 11.5);
    appendXmlEscaped(line, flamegraphLabel(name, w));
    line += "</text></g>\n";
    std::fwrite(line.data(), 1, line.size(), out);
  }
  writeFlamegraphTail(out);
  return {};
}

}  // namespace strobe::output
