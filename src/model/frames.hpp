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

// Whether `caller`, the frame just outside `callee` (isCloneCall: their
// functions), is the same function through a compiler clone: foo calling
// foo.part.0 (two functions, one identity). Such a caller adds nothing to
// a stack and is left out of the display frames, so a clone never reads as
// recursion; a function calling itself (one function) is recursion and
// stays.
inline bool isCloneCall(const Profile& p, FunctionId callee, FunctionId caller) {
  return callee < p.functions().size() && caller < p.functions().size() && callee != caller &&
         p.identity(callee) == p.identity(caller);
}
inline bool isCloneCaller(const Profile& p, const Frame& callee, const Frame& caller) {
  return callee.line != nullptr && caller.line != nullptr &&
         isCloneCall(p, callee.line->function, caller.line->function);
}

// Calls f(const Frame&) for each frame from the leaf to the root, clone
// callers left out (isCloneCaller).
template <typename F>
void forEachDisplayFrame(const Profile& p, StackId leaf, bool fold_inline, F&& f) {
  Frame callee;
  p.forEachFrame(leaf, [&](LocationId lid) {
    forEachLocationFrame(p, lid, fold_inline, [&](const Frame& fr) {
      if (isCloneCaller(p, callee, fr)) return;
      callee = fr;
      f(fr);
    });
  });
}

// The frames of a stack, root first.
std::vector<Frame> rootFirstFrames(const Profile& p, StackId leaf, bool fold_inline);

// Identifies a frame's function (Profile::identity, so a clone is the
// function it came from) or its unresolved location: equal keys mean the
// same function, whatever its name. Every aggregation keys frames by it,
// never by display text.
inline constexpr uint64_t kUnresolvedKeyBit = 1ULL << 63;
inline uint64_t functionKey(const Profile& p, const Frame& f) {
  return f.line != nullptr ? p.identity(f.line->function) : (kUnresolvedKeyBit | f.location);
}

// The file a frame's line is in: the line's own (Line::file), else its
// function's; "" when unknown.
StringId lineFile(const Profile& p, const Line& line);

// The frame's function name (demangled), or module+0xOFFSET when unresolved.
std::string frameName(const Profile& p, const Frame& f);

}  // namespace strobe::model
