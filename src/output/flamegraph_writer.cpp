#include "output/flamegraph_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/call_tree.hpp"
#include "model/interpreter_frames.hpp"
#include "model/measure.hpp"
#include "output/text_report.hpp"
#include "output/xml_escape.hpp"

namespace strobe::output {
namespace {

constexpr double kWidth = kFlameWidth;
constexpr double kPad = kFlamePad;
constexpr double kFrameHeight = kFlameFrameHeight;
constexpr double kTop = kFlameTop;
constexpr double kBottom = kFlameBottom;
constexpr double kMinWidthPx = kFlameMinWidthPx;
constexpr double kCharWidth = 7;  // Verdana 12px, roughly

// The viewer: zoom, reset, search (prompt, Ctrl-F or ?s=), hover details.
// Names are read from attributes and written with textContent only.
constexpr const char* kScript = R"JS(
"use strict";
var frames = [], details, matched, unzoomBtn, searchBtn, total = 1, curX = 0, curW = 1;
var W = 1200, PAD = 10, searchTerm = "";
function attr(g, k) { return g.getAttribute(k); }
function num(g, k) { return Number(g.getAttribute(k)); }
function init() {
  var root = document.documentElement;
  total = Number(root.getAttribute("data-total")) || 1;
  curW = total;
  details = document.getElementById("details");
  matched = document.getElementById("matched");
  unzoomBtn = document.getElementById("unzoom");
  searchBtn = document.getElementById("search");
  frames = Array.prototype.slice.call(document.querySelectorAll("#frames > g"));
  frames.forEach(function (g) {
    g.addEventListener("click", function () { zoom(g); });
    g.addEventListener("mouseover", function () {
      details.textContent = g.querySelector("title").textContent;
    });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  unzoomBtn.addEventListener("click", unzoom);
  searchBtn.addEventListener("click", function () {
    if (searchTerm !== "") { search(""); return; }
    var t = window.prompt("Search for (regular expression):", "");
    if (t !== null) search(t);
  });
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") {
      e.preventDefault();
      var t = window.prompt("Search for (regular expression):", searchTerm);
      if (t !== null) search(t);
    }
  });
  layout();
  var s = new URLSearchParams(window.location.search).get("s");
  if (s) search(s);
}
function layout() {
  var scale = (W - 2 * PAD) / curW;
  frames.forEach(function (g) {
    var x = num(g, "data-x"), w = num(g, "data-w");
    var nx = Math.max(x, curX), nw = Math.min(x + w, curX + curW) - nx;
    if (nw * scale < 0.1) { g.style.display = "none"; return; }
    g.style.display = "";
    var r = g.querySelector("rect"), t = g.querySelector("text");
    var px = PAD + (nx - curX) * scale, pw = nw * scale;
    r.setAttribute("x", px.toFixed(2));
    r.setAttribute("width", pw.toFixed(2));
    t.setAttribute("x", (px + 3).toFixed(2));
    var name = attr(g, "data-name"), fit = Math.floor((pw - 6) / 7);
    t.textContent = fit < 3 ? "" : (name.length <= fit ? name : name.slice(0, fit - 2) + "..");
  });
}
function zoom(g) {
  curX = num(g, "data-x");
  curW = num(g, "data-w") || 1;
  unzoomBtn.setAttribute("class", "");
  layout();
}
function unzoom() {
  curX = 0;
  curW = total;
  unzoomBtn.setAttribute("class", "hide");
  layout();
}
function search(term) {
  var re = null;
  try { re = new RegExp(term); } catch (e) { re = null; }
  searchTerm = term;
  var hits = [];
  frames.forEach(function (g) {
    var name = attr(g, "data-name"), r = g.querySelector("rect");
    var hit = term !== "" && (re ? re.test(name) : name.indexOf(term) >= 0);
    if (hit) {
      if (!r.hasAttribute("data-fill")) r.setAttribute("data-fill", r.getAttribute("fill"));
      r.setAttribute("fill", "rgb(230,0,230)");
      g.setAttribute("class", "match");
      hits.push(g);
    } else {
      if (r.hasAttribute("data-fill")) r.setAttribute("fill", r.getAttribute("data-fill"));
      g.removeAttribute("class");
    }
  });
  // The share of the matches: the union of their ranges (nested ones once).
  hits.sort(function (a, b) { return num(a, "data-x") - num(b, "data-x"); });
  var sum = 0, end = -1;
  hits.forEach(function (g) {
    var x = num(g, "data-x"), w = num(g, "data-w");
    if (x >= end) { sum += w; end = x + w; }
    else if (x + w > end) { sum += x + w - end; end = x + w; }
  });
  matched.textContent = term === "" ? " " : "Matched: " + (100 * sum / total).toFixed(1) + "%";
  searchBtn.textContent = term === "" ? "Search" : "Reset Search";
}
)JS";

uint32_t hashName(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// Off-CPU frames: those whose time is mostly spent off CPU.
bool mostlyOffCpu(const model::CallNode& n) {
  return 2 * n.off_cpu_weight > n.total_weight;
}

// Python frames (model/interpreter_frames.hpp): pale yellow, apart from
// the reds and oranges of native code.
std::string colorFor(const model::CallNode& n, const std::string& name, uint32_t id, bool python) {
  uint32_t h = hashName(name);
  double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0, v3 = ((h >> 16) & 0xff) / 255.0;
  int r, g, b;
  if (id == 0) {
    r = g = b = 200;
  } else if (n.is_thread) {
    r = static_cast<int>(120 + 40 * v1), g = static_cast<int>(150 + 40 * v2), b = 230;
  } else if (mostlyOffCpu(n)) {
    r = static_cast<int>(40 + 50 * v1), g = static_cast<int>(90 + 70 * v2),
    b = static_cast<int>(220 + 35 * v3);
  } else if (n.frame.line == nullptr) {
    r = g = b = static_cast<int>(170 + 50 * v1);
  } else if (python) {
    r = static_cast<int>(235 + 20 * v1), g = static_cast<int>(205 + 30 * v2),
    b = static_cast<int>(90 + 45 * v3);
  } else if (n.frame.inlined) {
    r = static_cast<int>(50 + 60 * v1), g = static_cast<int>(165 + 55 * v2),
    b = static_cast<int>(165 + 55 * v2);
  } else {
    r = static_cast<int>(205 + 50 * v3), g = static_cast<int>(230 * v1),
    b = static_cast<int>(55 * v2);
  }
  return fmt::format("rgb({},{},{})", r, g, b);
}

}  // namespace

std::string flamegraphTitle(const model::Profile& p) {
  const model::Measure m = model::measureOf(p);
  switch (m.view) {
    case model::View::kOffCpu:
      return "Off-CPU flame graph";
    case model::View::kWall:
      return p.meta().off_cpu != 0 ? "Wall-clock flame graph (CPU + off-CPU in blue)"
                                   : "Wall-clock flame graph";
    case model::View::kEvents:
      return m.label + " flame graph";
    case model::View::kCpu:
    case model::View::kAuto:
      break;
  }
  return "CPU flame graph";
}

void writeFlamegraphHead(std::FILE* out, double height, double total, const std::string& title,
                         const std::string& style, const std::string& markup) {
  fmt::print(out,
             "<?xml version=\"1.0\" standalone=\"no\"?>\n"
             "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
             "xmlns=\"http://www.w3.org/2000/svg\" data-total=\"{2:.0f}\" onload=\"init()\">\n",
             kFlameWidth, height, total);
  fmt::print(
      out,
      "<style type=\"text/css\">\n"
      "text {{ font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }}\n"
      "#title {{ text-anchor: middle; font-size: 17px; }}\n"
      "#frames > g:hover > rect {{ stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }}\n"
      "#search, #unzoom {{ cursor: pointer; }}\n"
      "#search, #matched {{ text-anchor: end; }}\n"
      ".hide {{ display: none; }}\n"
      "{}"
      "</style>\n",
      style);
  fmt::print(out, "<script type=\"text/ecmascript\"><![CDATA[{}]]></script>\n", kScript);
  fmt::print(out, "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"rgb(248,248,248)\"/>\n",
             kFlameWidth, height);
  fmt::print(out, "<text id=\"title\" x=\"{}\" y=\"24\">{}</text>\n", kFlameWidth / 2,
             xmlEscaped(title));
  fmt::print(out, "<text id=\"unzoom\" class=\"hide\" x=\"{}\" y=\"24\">Reset Zoom</text>\n", kPad);
  fmt::print(out, "<text id=\"search\" x=\"{}\" y=\"24\">Search</text>\n", kFlameWidth - kPad);
  fmt::print(out, "<text id=\"details\" x=\"{}\" y=\"{}\"> </text>\n", kPad, height - 14);
  fmt::print(out, "<text id=\"matched\" x=\"{}\" y=\"{}\"> </text>\n", kFlameWidth - kPad,
             height - 14);
  fmt::print(out, "{}<g id=\"frames\">\n", markup);
}

void writeFlamegraphTail(std::FILE* out) {
  fmt::print(out, "</g>\n</svg>\n");
}

std::string flamegraphLabel(const std::string& name, double width_px) {
  size_t fit = width_px < 6 ? 0 : static_cast<size_t>((width_px - 6) / kCharWidth);
  if (fit < 3) return {};
  return name.size() <= fit ? name : name.substr(0, fit - 2) + "..";
}

Status writeFlamegraph(const model::Profile& p, const FlamegraphOptions& opt, std::FILE* out) {
  const model::Measure measure = model::measureOf(p);
  const std::string title = opt.title.empty() ? flamegraphTitle(p) : opt.title;
  model::CallTree tree = model::CallTree::build(p, {opt.no_inline, opt.per_thread});
  const auto& nodes = tree.nodes();
  const uint64_t total = std::max<uint64_t>(tree.root().total_weight, 1);
  const double scale = (kWidth - 2 * kPad) / static_cast<double>(total);

  // Offsets (in weight units) and the deepest frame that will be drawn.
  std::vector<uint64_t> x(nodes.size(), 0);
  uint32_t max_depth = 0;
  for (uint32_t id = 0; id < nodes.size(); ++id) {
    const model::CallNode& n = nodes[id];
    if (static_cast<double>(n.total_weight) * scale < kMinWidthPx) continue;
    max_depth = std::max(max_depth, n.depth);
    uint64_t at = x[id];
    for (uint32_t c : n.children) {
      x[c] = at;
      at += nodes[c].total_weight;
    }
  }
  const double height = kTop + (max_depth + 1) * kFrameHeight + kBottom;

  writeFlamegraphHead(out, height, static_cast<double>(total), title, "", "");
  std::string line;
  std::string name_xml;
  model::walkDepthFirst(tree, [&](uint32_t id, const model::CallNode& n) {
    double w = static_cast<double>(n.total_weight) * scale;
    if (w < kMinWidthPx) return false;
    std::string name = tree.name(p, id);
    name_xml.clear();
    appendXmlEscaped(name_xml, name);
    double px = kPad + static_cast<double>(x[id]) * scale;
    double py = height - kBottom - (n.depth + 1) * kFrameHeight;
    double share = 100.0 * static_cast<double>(n.total_weight) / static_cast<double>(total);
    const std::string label = flamegraphLabel(name, w);
    line.clear();
    fmt::format_to(std::back_inserter(line), "<g data-x=\"{}\" data-w=\"{}\" data-name=\"{}\"",
                   x[id], n.total_weight, name_xml);
    if (n.off_cpu_weight > 0)
      fmt::format_to(std::back_inserter(line), " data-off=\"{}\"", n.off_cpu_weight);
    line += "><title>";
    line += name_xml;
    if (n.frame.inlined) line += " [inlined]";
    fmt::format_to(std::back_inserter(line), " ({} samples, {:.2f}%, {}", n.total_samples, share,
                   formatWeight(n.total_weight, measure));
    if (measure.time()) line += " " + measure.label;
    if (measure.view == model::View::kWall && n.off_cpu_weight > 0) {
      fmt::format_to(std::back_inserter(line), ", {} of it off-CPU",
                     formatDuration(n.off_cpu_weight));
    }
    line += ")</title>";
    fmt::format_to(std::back_inserter(line),
                   "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" "
                   "rx=\"2\"/><text x=\"{:.2f}\" y=\"{:.1f}\">",
                   px, py, w, kFrameHeight - 1,
                   colorFor(n, name, id, model::isPythonLocation(p, n.frame.location)), px + 3,
                   py + 11.5);
    appendXmlEscaped(line, label);
    line += "</text></g>\n";
    std::fwrite(line.data(), 1, line.size(), out);
    return true;
  });
  writeFlamegraphTail(out);
  return {};
}

}  // namespace strobe::output
