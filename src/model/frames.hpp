// Display frames: how a stack of locations reads as a list of functions.
//
// A location with an inline chain (Location::lines, innermost first) is
// several frames: every line but the last is marked `inlined` (it was
// inlined into the next, outer frame). With `fold_inline` a location is one
// frame: its last line, the real function, at the call site of the inlined
// code. A location that was not symbolized is one frame named
// module+0xOFFSET (see unresolvedName).
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

struct Frame {
  LocationId location = kNone;
  const Line* line = nullptr;  // nullptr: the location is unresolved
  bool inlined = false;        // inlined into the next (outer) frame
};

// Calls f(const Frame&) for the frames of one location, innermost first.
template <typename F>
void forEachLocationFrame(const Profile& p, LocationId lid, bool fold_inline, F&& f) {
  const Location& loc = p.locations()[lid];
  if (loc.lines.empty()) {
    f(Frame{lid, nullptr, false});
  } else if (fold_inline) {
    f(Frame{lid, &loc.lines.back(), false});
  } else {
    for (size_t i = 0; i < loc.lines.size(); ++i) {
      f(Frame{lid, &loc.lines[i], i + 1 < loc.lines.size()});
    }
  }
}

// Calls f(const Frame&) for each frame from the leaf to the root.
template <typename F>
void forEachDisplayFrame(const Profile& p, StackId leaf, bool fold_inline, F&& f) {
  p.forEachFrame(leaf, [&](LocationId lid) { forEachLocationFrame(p, lid, fold_inline, f); });
}

// The frames of a stack, root first.
std::vector<Frame> rootFirstFrames(const Profile& p, StackId leaf, bool fold_inline);

// Identifies a frame's function (or its unresolved location): equal keys
// mean the same row of a by-function report.
inline constexpr uint64_t kUnresolvedKeyBit = 1ULL << 63;
inline uint64_t functionKey(const Frame& f) {
  return f.line != nullptr ? f.line->function : (kUnresolvedKeyBit | f.location);
}

// The frame's function name (demangled), or module+0xOFFSET when unresolved.
std::string frameName(const Profile& p, const Frame& f);

}  // namespace strobe::model
