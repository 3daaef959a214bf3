#include "output/frame_table.hpp"

#include <unordered_map>

namespace strobe::output {

FrameTable::FrameTable(const model::Profile& p, bool no_inline) {
  size_t n = p.locations().size();
  offsets_.reserve(n + 1);
  ids_.reserve(n);
  std::unordered_map<uint64_t, uint32_t> by_key;
  offsets_.push_back(0);
  for (model::LocationId lid = 0; lid < n; ++lid) {
    model::forEachLocationFrame(p, lid, no_inline, [&](const model::Frame& f) {
      uint64_t key = model::functionKey(p, f) | (f.inlined ? (1ULL << 62) : 0);
      auto [it, inserted] = by_key.try_emplace(key, static_cast<uint32_t>(frames_.size()));
      if (inserted) frames_.push_back(f);
      ids_.push_back(it->second);
      fns_.push_back(f.line != nullptr ? f.line->function : model::kNone);
    });
    offsets_.push_back(static_cast<uint32_t>(ids_.size()));
  }
}

std::string frameLabel(const model::Profile& p, const model::Frame& f) {
  std::string name = model::frameName(p, f);
  if (f.inlined) name += " [inlined]";
  return name;
}

}  // namespace strobe::output
