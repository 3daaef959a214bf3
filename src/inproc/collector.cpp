#include "inproc/collector.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/clock.hpp"
#include "inproc/jit_registry.hpp"
#include "model/measure.hpp"
#include "model/module_path.hpp"
#include "model/synthetic_frames.hpp"
#include "perf/records.hpp"
#include "symbolize/jit_files.hpp"
#include "symbolize/symbolizer.hpp"
#include "unwind/unwinder.hpp"

namespace strobe::inproc {
namespace {

constexpr uint32_t kRoot = UINT32_MAX;
constexpr const char* kKernelModule = "[kernel.kallsyms]";

struct MapEntry {
  uint64_t start, end, pgoff;
  std::string path;
};

// Executable mappings of this process: files, [vdso], and anonymous memory
// (JIT code) as "//anon", the name MMAP2 records give it.
std::vector<MapEntry> readSelfMaps() {
  std::vector<MapEntry> out;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    // start-end perms offset dev inode path
    uint64_t start = 0, end = 0, pgoff = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx %7s %lx %*s %*s %n", &start, &end, perms, &pgoff,
                    &path_at) < 4) {
      continue;
    }
    if (std::strchr(perms, 'x') == nullptr) continue;
    std::string path = path_at > 0 && static_cast<size_t>(path_at) <= line.size()
                           ? line.substr(static_cast<size_t>(path_at))
                           : std::string();
    if (path.empty() || path.substr(0, 6) == "[anon:") path = "//anon";
    if (path[0] != '/' && path != "[vdso]") continue;
    out.push_back(MapEntry{start, end, pgoff, std::move(path)});
  }
  std::sort(out.begin(), out.end(),
            [](const MapEntry& a, const MapEntry& b) { return a.start < b.start; });
  return out;
}

const MapEntry* findMap(const std::vector<MapEntry>& maps, uint64_t addr) {
  auto it = std::upper_bound(maps.begin(), maps.end(), addr,
                             [](uint64_t a, const MapEntry& m) { return a < m.start; });
  if (it == maps.begin()) return nullptr;
  --it;
  return addr < it->end ? &*it : nullptr;
}

// What names this process's JIT code: the anonymous executable regions, the
// code registered through strobe_jit_register during the session, and the
// jitdump files (marker mappings; not libstrobe's own, whose content the
// registry has) and perf map that runtimes in the process write.
void addJitCode(model::Profile& p, const std::vector<MapEntry>& maps, const SessionInfo& info,
                std::vector<std::string>* warnings) {
  const int32_t pid = p.meta().pid;
  addRegisteredJitCode(p, info.start_monotonic_ns, info.start_monotonic_ns + info.duration_ns);
  symbolize::JitFiles files;
  const std::string own = ownJitdumpPath();
  for (const MapEntry& e : maps) {
    if (model::isAnonymousCode(e.path)) p.addAnonRegion(pid, e.start, e.end);
    if (model::isJitdumpMarker(e.path) && e.path != own) files.followJitdump(pid, e.path);
  }
  files.finish(p, monotonicNs());
  if (warnings != nullptr) {
    for (std::string& w : files.takeWarnings()) warnings->push_back(std::move(w));
  }
}

// This process's executable mappings as the unwinder sees them: a module
// is a mapping's index, its file the mapping's path.
class SelfMaps final : public unwind::AddressMap {
 public:
  explicit SelfMaps(const std::vector<MapEntry>& maps) : maps_(maps) {}
  bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const override {
    const MapEntry* e = findMap(maps_, avma);
    if (e == nullptr) return false;
    module = static_cast<uint32_t>(e - maps_.data());
    file_offset = avma - e->start + e->pgoff;
    return true;
  }
  std::string modulePath(uint32_t module) const override {
    return module < maps_.size() ? maps_[module].path : std::string();
  }

 private:
  const std::vector<MapEntry>& maps_;
};

std::vector<std::string> selfCommand() {
  std::vector<std::string> argv;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

std::string readLine(const char* path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

}  // namespace

std::vector<int32_t> listThreads() {
  std::vector<int32_t> tids;
  DIR* d = ::opendir("/proc/self/task");
  if (d == nullptr) return tids;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    tids.push_back(static_cast<int32_t>(std::strtol(e->d_name, nullptr, 10)));
  }
  ::closedir(d);
  return tids;
}

std::string threadName(int32_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
  return readLine(path);
}

uint32_t Collector::intern(uint32_t parent, uint64_t address) {
  auto [it, inserted] =
      node_ids_.try_emplace(NodeKey{parent, address}, static_cast<uint32_t>(nodes_.size()));
  if (inserted) nodes_.push_back(Node{parent, address});
  return it->second;
}

void Collector::add(int32_t tid, uint64_t time_ns, uint64_t weight, const uint64_t* frames,
                    uint32_t n) {
  if (n == 0) return;
  uint32_t node = kRoot;
  for (uint32_t i = n; i-- > 0;) {
    uint64_t a = i == 0 ? frames[i] : frames[i] - 1;
    node = intern(node, a);
  }
  samples_.push_back(RawSample{time_ns, weight, tid, node});
  if (!thread_names_.contains(tid)) noteThread(tid);
}

void Collector::noteThread(int32_t tid) {
  std::string name = threadName(tid);
  if (!name.empty() || !thread_names_.contains(tid)) thread_names_[tid] = std::move(name);
}

void Collector::nameThread(int32_t tid, std::string name) {
  if (!name.empty()) thread_names_[tid] = std::move(name);
}

void Collector::addSpan(const channel::SpanEvent& s) {
  auto it = span_name_ids_.find(s.name);
  if (it == span_name_ids_.end()) {
    it = span_name_ids_.emplace(std::string(s.name), static_cast<uint32_t>(span_names_.size()))
             .first;
    span_names_.emplace_back(s.name);
  }
  spans_.push_back(RawSpan{s.tid, s.depth, s.start_ns, s.end_ns, it->second});
  if (!thread_names_.contains(s.tid)) noteThread(s.tid);
}

void Collector::setRole(int32_t tid, std::string role) {
  roles_[tid] = std::move(role);
  if (!thread_names_.contains(tid)) noteThread(tid);
}

model::Profile Collector::toProfile(const SessionInfo& info,
                                    std::vector<std::string>* warnings) const {
  model::Profile p;
  auto& m = p.meta();
  m.command = selfCommand();
  m.pid = static_cast<int32_t>(::getpid());
  m.start_monotonic_ns = info.start_monotonic_ns;
  m.start_realtime_ns = info.start_realtime_ns;
  m.duration_ns = info.duration_ns;
  m.frequency = info.frequency;
  m.event = info.event;
  m.call_graph = "fp";
  m.lost_samples = info.dropped;
  m.target_cpu_ns = info.process_cpu_ns;
  m.refused_threads = info.refused_threads;
  m.refused_reason = info.refused_reason;
  m.dropped_spans = info.dropped_spans;
  m.stopped_reason = info.stopped_reason;
  m.kernel = readLine("/proc/sys/kernel/osrelease");
  m.hostname = readLine("/proc/sys/kernel/hostname");
  m.strobe_version = STROBE_VERSION;

  std::vector<MapEntry> maps = readSelfMaps();
  std::unordered_map<std::string, model::ModuleId> modules;
  // The executable is the first module (pprof takes it as the main binary).
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  for (const MapEntry& e : maps) {
    if (!ec && e.path == exe) {
      modules.emplace(exe, p.internModule(exe, ""));
      break;
    }
  }
  std::vector<model::StackId> stack_of(nodes_.size(), model::kNone);
  // Parents are always interned before their children.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    model::LocationId loc;
    if (perf::isKernelAddress(n.address)) {
      // Kernel frames (the kernel option) are named from /proc/kallsyms.
      auto [it, inserted] = modules.try_emplace(kKernelModule, 0);
      if (inserted) it->second = p.internModule(kKernelModule, "");
      loc = p.internLocation(it->second, n.address, n.address);
    } else if (const MapEntry* e = findMap(maps, n.address)) {
      auto [it, inserted] = modules.try_emplace(e->path, 0);
      if (inserted) it->second = p.internModule(e->path, "");
      loc = p.internLocation(it->second, n.address - e->start + e->pgoff, n.address);
    } else {
      loc = p.internLocation(model::kNone, n.address, n.address);
    }
    model::StackId parent = n.parent == kRoot ? model::kNone : stack_of[n.parent];
    stack_of[i] = p.internStack(parent, loc);
  }
  for (const auto& [tid, name] : thread_names_) {
    auto role = roles_.find(tid);
    p.setThread(model::Thread{tid, m.pid, name, role != roles_.end() ? role->second : ""});
  }
  addJitCode(p, maps, info, warnings);
  // Spans from the session's start on (a span open at the start was not
  // recorded: see spans.hpp), times relative to it like the samples'.
  std::vector<model::StringId> span_name(span_names_.size());
  for (size_t i = 0; i < span_names_.size(); ++i) span_name[i] = p.internString(span_names_[i]);
  for (const RawSpan& s : spans_) {
    auto rel = [&](uint64_t t) {
      return t >= info.start_monotonic_ns ? t - info.start_monotonic_ns : 0;
    };
    p.addSpan(model::Span{s.tid, s.depth, rel(s.start_ns), rel(s.end_ns), span_name[s.name]});
  }
  // Both engines walk frame pointers from the sampled pc: a leaf that had
  // not set up its frame there (by its CFI) hid its caller from the walk,
  // and a [missing caller] frame says so (model/synthetic_frames.hpp).
  unwind::Unwinder fp_check;
  SelfMaps self_maps(maps);
  std::vector<model::StackId> marked(nodes_.size(), model::kNone);
  auto leafStack = [&](uint32_t leaf) {
    const Node& n = nodes_[leaf];
    if (n.parent == kRoot || fp_check.framePointerSetUp(self_maps, n.address) != false) {
      return stack_of[leaf];
    }
    if (marked[leaf] == model::kNone) {
      model::StackId gap = p.internStack(stack_of[n.parent], model::missingCallerLocation(p));
      marked[leaf] = p.internStack(gap, p.stacks()[stack_of[leaf]].location);
    }
    return marked[leaf];
  };
  // Wall mode samples wall-clock time, cpu mode CPU time (model/measure.hpp).
  const model::SampleKind kind = model::kindOfEvent(m.event);
  for (const RawSample& s : samples_) {
    uint64_t t = s.time_ns >= info.start_monotonic_ns ? s.time_ns - info.start_monotonic_ns : 0;
    model::Sample sample{t, s.tid, 0, leafStack(s.leaf), s.weight};
    sample.kind = kind;
    p.addSample(sample);
  }
  symbolize::Symbolizer sym;
  Status st = sym.symbolize(p);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), sym.warnings().begin(), sym.warnings().end());
    if (!st.ok()) warnings->push_back(st.error().describe());
  }
  return p;
}

std::vector<std::string> symbolNames(const std::vector<uint64_t>& addresses) {
  model::Profile p;
  std::vector<MapEntry> maps = readSelfMaps();
  std::unordered_map<std::string, model::ModuleId> modules;
  std::vector<model::LocationId> locs;
  for (uint64_t a : addresses) {
    const MapEntry* e = findMap(maps, a);
    if (e == nullptr) {
      locs.push_back(p.internLocation(model::kNone, a, a));
      continue;
    }
    auto [it, inserted] = modules.try_emplace(e->path, 0);
    if (inserted) it->second = p.internModule(e->path, "");
    locs.push_back(p.internLocation(it->second, a - e->start + e->pgoff, a));
  }
  symbolize::Symbolizer sym;
  (void)sym.symbolize(p);
  std::vector<std::string> names;
  for (model::LocationId id : locs) {
    const model::Location& loc = p.locations()[id];
    // The outermost line is the real function (inner ones are inlined).
    names.push_back(loc.lines.empty() ? std::string()
                                      : p.str(p.functions()[loc.lines.back().function].name));
  }
  return names;
}

}  // namespace strobe::inproc
