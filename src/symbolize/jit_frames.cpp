#include "symbolize/jit_frames.hpp"

#include <algorithm>
#include <cstdio>

#include "model/module_path.hpp"
#include "symbolize/demangle.hpp"

namespace strobe::symbolize {

void JitFrames::apply(model::Profile& p) {
  if (table_.update(p)) candidates_.clear();
  if (!table_.empty()) moveSamples(p);
  next_sample_ = p.samples().size();
  nameLocations(p);
}

bool JitFrames::isAnonymous(const model::Profile& p, model::LocationId id) {
  if (anon_location_.size() <= id) anon_location_.resize(p.locations().size(), -1);
  int8_t& known = anon_location_[id];
  if (known < 0) {
    const model::Location& loc = p.locations()[id];
    known =
        loc.module == model::kNone || (loc.module < p.modules().size() &&
                                       model::isAnonymousCode(p.str(p.modules()[loc.module].path)))
            ? 1
            : 0;
  }
  return known == 1;
}

bool JitFrames::stackHasAnonymous(const model::Profile& p, model::StackId leaf) {
  const std::vector<model::StackNode>& stacks = p.stacks();
  if (anon_stack_.size() < stacks.size()) anon_stack_.resize(stacks.size(), -1);
  // Up to the first node already judged, then back down.
  walk_.clear();
  model::StackId s = leaf;
  int8_t above = 0;
  for (; s != model::kNone; s = stacks[s].parent) {
    if (anon_stack_[s] >= 0) {
      above = anon_stack_[s];
      break;
    }
    walk_.push_back(s);
  }
  for (size_t i = walk_.size(); i-- > 0;) {
    model::StackId n = walk_[i];
    above = static_cast<int8_t>(above != 0 || isAnonymous(p, stacks[n].location));
    anon_stack_[n] = above;
  }
  return anon_stack_[leaf] == 1;
}

model::LocationId JitFrames::jitLocation(model::Profile& p, model::JitCodeId code,
                                         uint64_t address) {
  if (jit_module_ == model::kNone) jit_module_ = p.internModule(model::kJitModule, "");
  const model::JitCode& c = p.jitCode()[code];
  return p.internLocation(jit_module_, c.module_offset + (address - c.start), address);
}

void JitFrames::moveSamples(model::Profile& p) {
  std::vector<model::Sample>& samples = p.mutableSamples();
  int32_t last_tid = 0;
  int32_t pid = p.meta().pid;
  bool have_tid = false;
  std::vector<model::LocationId> frames;
  for (size_t si = next_sample_; si < samples.size(); ++si) {
    model::Sample& s = samples[si];
    if (s.stack == model::kNone || !stackHasAnonymous(p, s.stack)) continue;
    if (!have_tid || s.tid != last_tid) {
      const model::Thread* t = p.findThread(s.tid);
      pid = t != nullptr && t->pid != 0 ? t->pid : p.meta().pid;
      last_tid = s.tid;
      have_tid = true;
    }
    const auto time = static_cast<int64_t>(std::min<uint64_t>(s.time_ns, INT64_MAX));
    frames.clear();
    p.forEachFrame(s.stack, [&](model::LocationId l) { frames.push_back(l); });
    bool moved = false;
    for (model::LocationId& l : frames) {
      if (!isAnonymous(p, l)) continue;
      const uint64_t address = p.locations()[l].address;
      uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) | l;
      auto [it, fresh] = candidates_.try_emplace(key);
      if (fresh) table_.candidates(pid, address, it->second);
      model::JitCodeId code = table_.choose(it->second, time);
      if (code == model::kNone) continue;
      l = jitLocation(p, code, address);
      moved = true;
    }
    if (!moved) continue;
    model::StackId stack = model::kNone;
    for (size_t i = frames.size(); i-- > 0;) stack = p.internStack(stack, frames[i]);
    s.stack = stack;
  }
}

void JitFrames::nameLocations(model::Profile& p) {
  std::vector<model::Location>& locations = p.mutableLocations();
  const std::vector<model::AnonRegion>& regions = p.anonRegions();
  for (size_t li = next_location_; li < locations.size(); ++li) {
    if (!locations[li].lines.empty()) continue;
    const model::Location loc = locations[li];  // interning below may move the table
    if (loc.module != model::kNone && loc.module < p.modules().size() &&
        p.str(p.modules()[loc.module].path) == model::kJitModule) {
      model::JitCodeId id = p.jitCodeAt(loc.offset);
      if (id == model::kNone) continue;
      const model::JitCode& c = p.jitCode()[id];
      const uint64_t at = loc.offset - c.module_offset;
      // The function's file and first line: its first line row's.
      model::StringId file = c.lines.empty() ? model::kEmptyString : c.lines.front().file;
      uint32_t start_line = 0;
      uint32_t line = 0;
      for (const model::JitLine& r : c.lines) {
        if (r.file == file && r.line != 0 && (start_line == 0 || r.line < start_line)) {
          start_line = r.line;
        }
        if (r.offset <= at) line = r.line;
      }
      const std::string raw = p.str(c.name);
      const std::string file_name = p.str(file);
      model::FunctionId fid = p.internFunction(demangle(raw), raw, file_name, start_line);
      locations[li].lines.push_back(model::Line{fid, line});
      continue;
    }
    if (!isAnonymous(p, static_cast<model::LocationId>(li))) continue;
    auto region = std::find_if(regions.begin(), regions.end(), [&](const model::AnonRegion& r) {
      return r.start <= loc.address && loc.address < r.end;
    });
    if (region == regions.end()) continue;
    char name[48];
    std::snprintf(name, sizeof name, "[anon]+0x%llx",
                  static_cast<unsigned long long>(region->start));
    model::FunctionId fid = p.internFunction(name, name, "", 0);
    locations[li].lines.push_back(model::Line{fid, 0});
  }
  next_location_ = locations.size();
}

}  // namespace strobe::symbolize
