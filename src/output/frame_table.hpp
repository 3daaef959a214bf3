// The display frames of a profile, numbered: each distinct frame (a function
// or an unresolved location, inlined or not) gets one id, and each location
// maps to its frame ids, innermost first. Shared by the writers that emit a
// frame table (speedscope) or name frames per event (chrome).
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
  // Appends the frame ids of a stack, leaf first (innermost frame first).
  void appendLeafFirst(const model::Profile& p, model::StackId leaf,
                       std::vector<uint32_t>& out) const {
    p.forEachFrame(leaf, [&](model::LocationId lid) {
      std::span<const uint32_t> ids = ofLocation(lid);
      out.insert(out.end(), ids.begin(), ids.end());
    });
  }

 private:
  std::vector<model::Frame> frames_;
  std::vector<uint32_t> offsets_;  // per location, into ids_; one more than locations
  std::vector<uint32_t> ids_;
};

// The name a frame is shown under: its function name, with " [inlined]"
// after the frames that were inlined into their caller.
std::string frameLabel(const model::Profile& p, const model::Frame& f);

}  // namespace strobe::output
