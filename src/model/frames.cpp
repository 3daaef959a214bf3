#include "model/frames.hpp"

#include <algorithm>

#include "model/aggregate.hpp"

namespace strobe::model {

std::vector<Frame> rootFirstFrames(const Profile& p, StackId leaf, bool fold_inline) {
  std::vector<Frame> frames;
  forEachDisplayFrame(p, leaf, fold_inline, [&](const Frame& f) { frames.push_back(f); });
  std::reverse(frames.begin(), frames.end());
  return frames;
}

std::string frameName(const Profile& p, const Frame& f) {
  if (f.line == nullptr) return unresolvedName(p, p.locations()[f.location]);
  if (f.line->function >= p.functions().size()) return "??";
  return p.str(p.functions()[f.line->function].name);
}

StringId lineFile(const Profile& p, const Line& line) {
  if (line.file != kEmptyString || line.function >= p.functions().size()) return line.file;
  return p.functions()[line.function].file;
}

}  // namespace strobe::model
