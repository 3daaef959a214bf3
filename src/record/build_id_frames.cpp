#include "record/build_id_frames.hpp"

#include <cstring>
#include <string_view>

#include "model/module_path.hpp"

namespace strobe::record {
namespace {

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

size_t BuildIdFrames::KeyHash::operator()(const Key& k) const {
  uint64_t h;
  std::memcpy(&h, k.data(), sizeof h);  // a build-id is a hash already
  return static_cast<size_t>(h);
}

std::string BuildIdFrames::hex(const uint8_t* build_id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const bool short_id =
      build_id[16] == 0 && build_id[17] == 0 && build_id[18] == 0 && build_id[19] == 0;
  std::string s;
  for (size_t i = 0; i < (short_id ? 16u : 20u); ++i) {
    s += kDigits[build_id[i] >> 4];
    s += kDigits[build_id[i] & 15];
  }
  return s;
}

void BuildIdFrames::noteModule(const model::Profile& p, model::ModuleId module) {
  const model::Module& m = p.modules()[module];
  std::string_view id = p.str(m.build_id);
  if (id.empty() || id.size() > 40 || id.size() % 2 != 0) return;
  if (!model::isFileBacked(p.str(m.path))) return;
  Key key{};
  for (size_t i = 0; i < id.size() / 2; ++i) {
    const int hi = nibble(id[2 * i]);
    const int lo = nibble(id[2 * i + 1]);
    if (hi < 0 || lo < 0) return;
    key[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  auto [it, fresh] = module_of_.try_emplace(key, module);
  // A module known by its build-id alone until now gets its file's path.
  if (!fresh && p.str(p.modules()[it->second].path).empty()) it->second = module;
}

uint64_t BuildIdFrames::resolve(model::Profile& p, const AddressSpace& as, const BuildIdFrame& f,
                                bool leaf) {
  if (f.build_id == nullptr) return leaf || f.offset == 0 ? f.offset : f.offset - 1;
  Key key;
  std::memcpy(key.data(), f.build_id, key.size());
  auto it = module_of_.find(key);
  if (it == module_of_.end()) {
    // No mapping of this file was seen: a module known by its build-id.
    it = module_of_.emplace(key, p.internModule("", hex(f.build_id))).first;
  }
  const model::ModuleId module = it->second;
  if (const Mapping* m = as.findFileOffset(module, f.offset)) {
    const uint64_t address = m->start + (f.offset - m->pgoff);
    return leaf ? address : address - 1;
  }
  const uint64_t offset = leaf || f.offset == 0 ? f.offset : f.offset - 1;
  const uint64_t k = (uint64_t{module} << 44) | (offset & ((uint64_t{1} << 44) - 1));
  auto [pit, fresh] = pseudo_of_.try_emplace(k, kPseudoBase + pseudo_.size());
  if (fresh) {
    if (pit->second >= kPseudoEnd) {
      pseudo_of_.erase(pit);
      return offset;  // a table that large is no frame source: left unmapped
    }
    pseudo_.emplace_back(module, offset);
  }
  return pit->second;
}

}  // namespace strobe::record
