// The flame graph: a self-contained interactive SVG (no external scripts,
// styles or fonts). Root at the bottom; each frame's width is its share of
// the CPU time. Click a frame to zoom into it, "Reset Zoom" to go back;
// "Search" (or Ctrl-F, or ?s=REGEX in the URL) highlights matching frames
// and shows their combined share ("Matched: 12.3%"). Hovering shows the
// name, samples, share and CPU time. Inlined frames are marked [inlined].
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
  std::string title = "CPU flame graph";
};

Status writeFlamegraph(const model::Profile& p, const FlamegraphOptions& opt, std::FILE* out);

}  // namespace strobe::output
