// The flame graph: a self-contained interactive SVG (no external scripts,
// styles or fonts). Root at the bottom; each frame's width is its share of
// the CPU time. Click a frame to zoom into it, "Reset Zoom" to go back;
// "Search" (or Ctrl-F, or ?s=REGEX in the URL) highlights matching frames
// and shows their combined share ("Matched: 12.3%"). Hovering shows the
// name, samples, share and time (in the unit of the profile's view: CPU,
// off-CPU, wall, or counts of the event). Inlined frames are marked
// [inlined]; frames whose time is mostly off CPU (record --off-cpu, the wall
// and off-cpu views) are drawn in blues (data-off: their off-CPU weight).
// Frames narrower than 0.1 px are left out. Every name is XML-escaped; the
// script reads names only through textContent.
// Streams from the call tree. Thread safety: pure over a const Profile.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct FlamegraphOptions {
  bool no_inline = false;
  bool per_thread = false;  // one tower per thread above the root
  std::string title;        // "": flamegraphTitle(p)
};

// "CPU flame graph", "Off-CPU flame graph", "Wall-clock flame graph (CPU +
// off-CPU)", "page-faults flame graph": what the profile's view shows.
std::string flamegraphTitle(const model::Profile& p);

Status writeFlamegraph(const model::Profile& p, const FlamegraphOptions& opt, std::FILE* out);

// What the differential flame graph (strobe diff, diff_flamegraph.cpp)
// shares with this one: the page's geometry, its head (style, the script,
// title, buttons; `style`: more CSS rules, `markup`: more elements above the
// frames) up to the frames' group, its tail,
// and a frame's label cut to its width. A frame is <g data-x data-w
// data-name><title/><rect/><text/></g> in units of `total`.
inline constexpr double kFlameWidth = 1200;
inline constexpr double kFlamePad = 10;
inline constexpr double kFlameFrameHeight = 16;
inline constexpr double kFlameTop = 40;
inline constexpr double kFlameBottom = 36;
inline constexpr double kFlameMinWidthPx = 0.1;
void writeFlamegraphHead(std::FILE* out, double height, double total, const std::string& title,
                         const std::string& style, const std::string& markup);
void writeFlamegraphTail(std::FILE* out);
std::string flamegraphLabel(const std::string& name, double width_px);

}  // namespace strobe::output
