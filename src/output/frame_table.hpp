// The display frames of a profile, numbered: each distinct frame (a
// function identity or an unresolved location, inlined or not; see
// model/frames.hpp) gets one id, and each location maps to its frame ids,
// innermost first. Shared by the writers that emit a frame table
// (speedscope, html) or name frames per event (chrome).
//
// Thread safety: built once over a const Profile; read-only afterwards.
// The Frame values point into the Profile, which must outlive the table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/frames.hpp"
#include "model/profile.hpp"

namespace strobe::output {

class FrameTable {
 public:
  FrameTable(const model::Profile& p, bool no_inline);

  // Distinct frames, in order of first appearance over the locations.
  const std::vector<model::Frame>& frames() const { return frames_; }
  // The frame ids of one location, innermost first.
  std::span<const uint32_t> ofLocation(model::LocationId lid) const {
    return {ids_.data() + offsets_[lid], ids_.data() + offsets_[lid + 1]};
  }
  // The function of each of ofLocation(lid)'s frames (model::kNone when
  // unresolved): which clone of a function the location is in.
  std::span<const model::FunctionId> functionsOfLocation(model::LocationId lid) const {
    return {fns_.data() + offsets_[lid], fns_.data() + offsets_[lid + 1]};
  }

  // Appends the frame ids of a stack, leaf first (innermost frame first),
  // clone callers left out, as model::forEachDisplayFrame does.
  void appendLeafFirst(const model::Profile& p, model::StackId leaf,
                       std::vector<uint32_t>& out) const {
    model::FunctionId callee = model::kNone;
    p.forEachFrame(leaf, [&](model::LocationId lid) {
      std::span<const uint32_t> ids = ofLocation(lid);
      std::span<const model::FunctionId> fns = functionsOfLocation(lid);
      for (size_t k = 0; k < ids.size(); ++k) {
        if (model::isCloneCall(p, callee, fns[k])) continue;
        callee = fns[k];
        out.push_back(ids[k]);
      }
    });
  }

 private:
  std::vector<model::Frame> frames_;
  std::vector<uint32_t> offsets_;  // per location, into ids_; one more than locations
  std::vector<uint32_t> ids_;
  std::vector<model::FunctionId> fns_;  // parallel to ids_
};

// The name a frame is shown under: its function name, with " [inlined]"
// after the frames that were inlined into their caller.
std::string frameLabel(const model::Profile& p, const model::Frame& f);

}  // namespace strobe::output
