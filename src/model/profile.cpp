#include "model/profile.hpp"

#include <algorithm>

#include "base/mmap.hpp"
#include "model/module_path.hpp"
#include "model/symbol_names.hpp"

namespace strobe::model {
namespace {

std::string internKey(std::string_view name, std::string_view system_name, std::string_view file,
                      uint32_t start_line) {
  std::string key;
  key.reserve(name.size() + system_name.size() + file.size() + 16);
  key.append(name).push_back('\0');
  key.append(system_name).push_back('\0');
  key.append(file).push_back('\0');
  key.append(std::to_string(start_line));
  return key;
}

}  // namespace

Profile::Profile() {
  internString("");
}

StringId Profile::internString(std::string_view s) {
  auto it = string_ids_.find(std::string(s));
  if (it != string_ids_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  string_ids_.emplace(strings_.back(), id);
  return id;
}

ModuleId Profile::internModule(std::string_view path, std::string_view build_id) {
  StringId p = internString(path);
  StringId b = internString(build_id);
  uint64_t key = (static_cast<uint64_t>(p) << 32) | b;
  auto [it, inserted] = module_ids_.try_emplace(key, static_cast<ModuleId>(modules_.size()));
  if (inserted) {
    modules_.push_back(Module{p, b});
    module_shows_path_.push_back(false);
    std::string base(baseName(strings_[p]));
    auto [first, fresh] = path_of_base_name_.try_emplace(base, p);
    if (!fresh && first->second != p) {
      // Two paths, one file name: every module of that name shows its path.
      for (size_t m = 0; m < modules_.size(); ++m) {
        if (baseName(strings_[modules_[m].path]) == base) module_shows_path_[m] = true;
      }
    }
  }
  return it->second;
}

FunctionId Profile::internFunction(std::string_view name, std::string_view system_name,
                                   std::string_view file, uint32_t start_line) {
  std::string key = internKey(name, system_name, file, start_line);
  auto it = function_ids_.find(key);
  if (it != function_ids_.end()) return it->second;
  auto id = static_cast<FunctionId>(functions_.size());
  functions_.push_back(
      Function{internString(name), internString(system_name), internString(file), start_line});
  function_ids_.emplace(std::move(key), id);
  identities_.push_back(
      identity_ids_.try_emplace(internKey(name, cloneBase(system_name), file, start_line), id)
          .first->second);
  return id;
}

LocationId Profile::internLocation(ModuleId module, uint64_t offset, uint64_t address) {
  LocationKey key{module, module == kNone ? address : offset};
  auto [it, inserted] = location_ids_.try_emplace(key, static_cast<LocationId>(locations_.size()));
  if (inserted) locations_.push_back(Location{module, address, key.offset, {}});
  return it->second;
}

namespace {

size_t stackSlot(StackId parent, LocationId location, size_t mask) {
  uint64_t key = (static_cast<uint64_t>(parent) << 32) | location;
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

}  // namespace

StackId Profile::internStack(StackId parent, LocationId location) {
  if ((stacks_.size() + 1) * 2 > stack_index_.size()) growStackIndex((stacks_.size() + 1) * 2);
  const size_t mask = stack_index_.size() - 1;
  for (size_t i = stackSlot(parent, location, mask);; i = (i + 1) & mask) {
    StackId id = stack_index_[i];
    if (id == kNone) {
      id = static_cast<StackId>(stacks_.size());
      stacks_.push_back(StackNode{parent, location});
      stack_index_[i] = id;
      return id;
    }
    if (stacks_[id].parent == parent && stacks_[id].location == location) return id;
  }
}

void Profile::reserveStacks(size_t n) {
  stacks_.reserve(n);
  adviseHugePages(stacks_.data(), stacks_.capacity() * sizeof(StackNode));
  if (n * 2 > stack_index_.size()) growStackIndex(n * 2);
}

void Profile::growStackIndex(size_t min_slots) {
  size_t slots = std::max<size_t>(stack_index_.size() * 2, 64);
  while (slots < min_slots) slots *= 2;
  stack_index_.clear();
  stack_index_.reserve(slots);
  adviseHugePages(stack_index_.data(), slots * sizeof(StackId));
  stack_index_.resize(slots, kNone);
  const size_t mask = slots - 1;
  for (StackId id = 0; id < stacks_.size(); ++id) {
    size_t i = stackSlot(stacks_[id].parent, stacks_[id].location, mask);
    while (stack_index_[i] != kNone) i = (i + 1) & mask;
    stack_index_[i] = id;
  }
}

std::vector<StackId> Profile::keepStacks(const std::vector<bool>& keep) {
  std::vector<StackId> map(stacks_.size(), kNone);
  size_t n = 0;
  for (size_t id = 0; id < stacks_.size(); ++id) {
    if (id >= keep.size() || !keep[id]) continue;
    StackNode node = stacks_[id];
    if (node.parent != kNone) node.parent = map[node.parent];  // parents come first
    map[id] = static_cast<StackId>(n);
    stacks_[n++] = node;
  }
  stacks_.resize(n);
  stacks_.shrink_to_fit();
  stack_index_.clear();
  stack_index_.shrink_to_fit();
  if (n > 0) growStackIndex(n * 2);
  for (Sample& s : samples_) {
    if (s.stack != kNone) s.stack = map[s.stack];
  }
  return map;
}

void Profile::setThread(Thread t) {
  auto it = thread_index_.find(t.tid);
  if (it != thread_index_.end()) {
    threads_[it->second] = std::move(t);
    return;
  }
  thread_index_.emplace(t.tid, threads_.size());
  threads_.push_back(std::move(t));
}

const Thread* Profile::findThread(int32_t tid) const {
  auto it = thread_index_.find(tid);
  return it == thread_index_.end() ? nullptr : &threads_[it->second];
}

JitCodeId Profile::addJitCode(JitCode code) {
  code.module_offset = jit_module_size_;
  // 16-aligned, and at least one byte each, so no two functions share an offset.
  jit_module_size_ += (std::max<uint64_t>(code.size, 1) + 15) & ~uint64_t{15};
  jit_code_.push_back(std::move(code));
  return static_cast<JitCodeId>(jit_code_.size() - 1);
}

JitCodeId Profile::jitCodeAt(uint64_t module_offset) const {
  auto it = std::upper_bound(jit_code_.begin(), jit_code_.end(), module_offset,
                             [](uint64_t off, const JitCode& c) { return off < c.module_offset; });
  if (it == jit_code_.begin()) return kNone;
  --it;
  if (module_offset - it->module_offset >= std::max<uint64_t>(it->size, 1)) return kNone;
  return static_cast<JitCodeId>(it - jit_code_.begin());
}

void Profile::addAnonRegion(int32_t pid, uint64_t start, uint64_t end) {
  if (end <= start) return;
  // Regions are few (a JIT's code spaces); merge by a linear pass.
  for (size_t i = 0; i < anon_regions_.size();) {
    AnonRegion& r = anon_regions_[i];
    if (r.pid == pid && r.start <= end && start <= r.end) {
      start = std::min(start, r.start);
      end = std::max(end, r.end);
      anon_regions_.erase(anon_regions_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  AnonRegion merged{pid, start, end};
  auto at = std::lower_bound(anon_regions_.begin(), anon_regions_.end(), merged,
                             [](const AnonRegion& a, const AnonRegion& b) {
                               return a.pid != b.pid ? a.pid < b.pid : a.start < b.start;
                             });
  anon_regions_.insert(at, merged);
}

std::string_view Profile::moduleName(ModuleId id) const {
  if (id == kNone) return "[unknown]";
  std::string_view p = strings_[modules_[id].path];
  if (p == "//anon") return "[anon]";
  return module_shows_path_[id] ? p : baseName(p);
}

}  // namespace strobe::model
