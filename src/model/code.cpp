#include "model/code.hpp"

#include <algorithm>

namespace strobe::model {

uint64_t codeChecksum(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h == 0 ? 1 : h;
}

CodeIndex::CodeIndex(const Profile& p) : p_(&p) {
  const std::vector<FunctionCode>& code = p.code();
  order_.resize(code.size());
  for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    if (code[a].module != code[b].module) return code[a].module < code[b].module;
    return code[a].offset < code[b].offset;
  });
}

const FunctionCode* CodeIndex::find(ModuleId module, uint64_t offset) const {
  const std::vector<FunctionCode>& code = p_->code();
  auto it = std::upper_bound(order_.begin(), order_.end(), std::pair{module, offset},
                             [&](const std::pair<ModuleId, uint64_t>& k, uint32_t i) {
                               if (k.first != code[i].module) return k.first < code[i].module;
                               return k.second < code[i].offset;
                             });
  // Nested ranges: look a few back for one that holds the offset.
  for (int steps = 0; it != order_.begin() && steps < 4; ++steps) {
    const FunctionCode& c = code[*--it];
    if (c.module != module) break;
    if (offset - c.offset < c.size) return &c;
  }
  return nullptr;
}

std::vector<LeafWeight> leafWeights(const Profile& p) {
  std::vector<LeafWeight> out(p.locations().size());
  for (const Sample& s : p.samples()) {
    if (s.stack == kNone) continue;
    LeafWeight& w = out[p.stacks()[s.stack].location];
    w.weight += s.weight;
    w.samples += 1;
  }
  return out;
}

}  // namespace strobe::model
