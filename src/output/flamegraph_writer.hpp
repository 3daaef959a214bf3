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

}  // namespace strobe::output
