#include "agent/encode.hpp"

#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "output/pprof_writer.hpp"

namespace strobe::agent {

model::Profile selectSamples(const model::Profile& p, uint64_t since_ns, uint64_t until_ns,
                             const Selection& selection) {
  auto processOf = [&](int32_t tid) {
    const model::Thread* t = p.findThread(tid);
    return t != nullptr && t->pid != 0 ? t->pid : tid;
  };
  auto selected = [&](const model::Sample& s) {
    if (s.time_ns < since_ns || s.time_ns >= until_ns) return false;
    if (selection.pid == 0 && selection.comm.empty()) return true;
    const int32_t pid = processOf(s.tid);
    if (selection.pid != 0 && pid != selection.pid) return false;
    if (!selection.comm.empty()) {
      const model::Thread* main = p.findThread(pid);
      return main != nullptr && main->name == selection.comm;
    }
    return true;
  };

  model::Profile out;
  out.meta() = p.meta();
  out.setView(p.view());
  auto str = [&](model::StringId id) { return out.internString(p.str(id)); };
  std::vector<model::ModuleId> modules(p.modules().size(), model::kNone);
  auto moduleOf = [&](model::ModuleId m) {
    if (m == model::kNone || m >= modules.size()) return model::kNone;
    if (modules[m] == model::kNone) {
      modules[m] = out.internModule(p.str(p.modules()[m].path), p.str(p.modules()[m].build_id));
    }
    return modules[m];
  };
  std::vector<model::FunctionId> functions(p.functions().size(), model::kNone);
  auto functionOf = [&](model::FunctionId f) {
    if (f == model::kNone || f >= functions.size()) return model::kNone;
    if (functions[f] == model::kNone) {
      const model::Function& fn = p.functions()[f];
      functions[f] =
          out.internFunction(p.str(fn.name), p.str(fn.system_name), p.str(fn.file), fn.start_line);
    }
    return functions[f];
  };
  std::unordered_map<model::LocationId, model::LocationId> locations;
  auto locationOf = [&](model::LocationId l) {
    auto [it, fresh] = locations.try_emplace(l, model::kNone);
    if (fresh && l < p.locations().size()) {
      const model::Location& from = p.locations()[l];
      it->second = out.internLocation(moduleOf(from.module), from.offset, from.address);
      model::Location& to = out.mutableLocations()[it->second];
      if (to.lines.empty()) {
        for (const model::Line& line : from.lines) {
          to.lines.push_back(model::Line{functionOf(line.function), line.line, str(line.file)});
        }
      }
    }
    return it->second;
  };
  std::unordered_map<model::StackId, model::StackId> stacks;
  std::vector<model::LocationId> frames;
  auto stackOf = [&](model::StackId leaf) {
    if (leaf == model::kNone) return model::kNone;
    if (auto it = stacks.find(leaf); it != stacks.end()) return it->second;
    frames.clear();
    p.forEachFrame(leaf, [&](model::LocationId l) { frames.push_back(l); });
    model::StackId s = model::kNone;
    for (size_t i = frames.size(); i-- > 0;) s = out.internStack(s, locationOf(frames[i]));
    stacks.emplace(leaf, s);
    return s;
  };
  std::unordered_set<int32_t> threads;
  for (const model::Sample& s : p.samples()) {
    if (!selected(s)) continue;
    model::Sample copy = s;
    copy.stack = stackOf(s.stack);
    out.addSample(copy);
    if (threads.insert(s.tid).second) {
      if (const model::Thread* t = p.findThread(s.tid)) out.setThread(*t);
      const int32_t pid = processOf(s.tid);
      if (pid != s.tid && threads.insert(pid).second) {
        if (const model::Thread* t = p.findThread(pid)) out.setThread(*t);
      }
    }
  }
  for (const model::JitCode& c : p.jitCode()) {
    model::JitCode copy = c;
    copy.name = str(c.name);
    for (model::JitLine& l : copy.lines) l.file = str(l.file);
    out.addJitCode(std::move(copy));
  }
  for (const model::AnonRegion& r : p.anonRegions()) out.addAnonRegion(r.pid, r.start, r.end);
  model::Meta& m = out.meta();
  m.start_realtime_ns += since_ns;
  m.start_monotonic_ns += since_ns;
  m.duration_ns = until_ns - since_ns;
  return out;
}

Result<std::string> encodePprof(const model::Profile& p, const Labels& labels) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = ::open_memstream(&data, &size);
  if (f == nullptr) return systemError("cannot encode a profile in memory", "");
  output::PprofOptions opt;
  opt.process_labels = true;
  opt.used_mappings_only = true;
  opt.labels = labels;
  Status st = output::writePprof(p, opt, f);
  std::fclose(f);
  std::string bytes(data != nullptr ? data : "", size);
  std::free(data);
  if (!st) return st.takeError();
  return bytes;
}

}  // namespace strobe::agent
