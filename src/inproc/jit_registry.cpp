#include "inproc/jit_registry.hpp"

#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/clock.hpp"
#include "inproc/jitdump_writer.hpp"

namespace strobe::inproc {
namespace {

// Code bytes copied into one profile at most (the rest: names and lines only).
constexpr uint64_t kMaxProfileCodeBytes = uint64_t{64} << 20;

struct Line {
  uint64_t offset;
  std::string file;
  uint32_t line;
};

struct Entry {
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t load_ns = 0;
  uint64_t unload_ns = UINT64_MAX;
  std::string name;
  std::vector<Line> lines;
};

struct Registry {
  std::mutex mu;
  std::unordered_map<uint64_t, Entry> live;  // by start
  std::vector<Entry> dead;                   // unregistered while a session ran
  // Running sessions (0 or 1). Atomic: a session starts while holding its
  // own lock, which fork() takes after this registry's.
  std::atomic<int> sessions{0};
  JitdumpWriter writer;
};

// Never destroyed: a JIT may register from threads still running at exit.
// fork() waits for a registration in progress, so the child's copy of the
// mutex is free.
Registry& registry() {
  static auto* r = [] {
    auto* made = new Registry;
    ::pthread_atfork([] { registry().mu.lock(); }, [] { registry().mu.unlock(); },
                     [] { registry().mu.unlock(); });
    return made;
  }();
  return *r;
}

void retireLocked(Registry& r, std::unordered_map<uint64_t, Entry>::iterator it, uint64_t now) {
  if (r.sessions > 0) {
    it->second.unload_ns = now;
    r.dead.push_back(std::move(it->second));
  }
  r.live.erase(it);
}

int64_t relative(uint64_t t, uint64_t start) {
  return t >= start ? static_cast<int64_t>(std::min<uint64_t>(t - start, INT64_MAX))
                    : -static_cast<int64_t>(std::min<uint64_t>(start - t, INT64_MAX));
}

}  // namespace

void jitRegister(const char* name, uint64_t start, uint64_t size) {
  if (name == nullptr || *name == '\0' || start == 0 || size == 0 || start > UINT64_MAX - size) {
    return;
  }
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  const uint64_t now = monotonicNs();
  if (auto it = r.live.find(start); it != r.live.end()) retireLocked(r, it, now);
  Entry& e = r.live[start];
  e.start = start;
  e.size = size;
  e.load_ns = now;
  e.name = name;
  r.writer.load(now, start, size, e.name, {});
}

void jitRegisterLines(uint64_t start, const JitLineIn* lines, size_t n) {
  if (lines == nullptr && n != 0) return;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.live.find(start);
  if (it == r.live.end()) return;
  Entry& e = it->second;
  e.lines.clear();
  std::vector<symbolize::JitdumpLine> rows;
  for (size_t i = 0; i < n; ++i) {
    const JitLineIn& l = lines[i];
    if (l.pc < e.start || l.pc - e.start >= e.size) continue;
    e.lines.push_back(Line{l.pc - e.start, l.file != nullptr ? l.file : "", l.line});
  }
  std::stable_sort(e.lines.begin(), e.lines.end(),
                   [](const Line& a, const Line& b) { return a.offset < b.offset; });
  rows.reserve(e.lines.size());
  for (const Line& l : e.lines) rows.push_back({e.start + l.offset, l.line, 0, l.file});
  // The format wants debug information before its load: load it again.
  r.writer.load(monotonicNs(), e.start, e.size, e.name, rows);
}

void jitUnregister(uint64_t start) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (auto it = r.live.find(start); it != r.live.end()) retireLocked(r, it, monotonicNs());
}

void jitSessionBegin() {
  registry().sessions.fetch_add(1);
}

void jitSessionEnd() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (r.sessions.load() > 0) r.sessions.fetch_sub(1);
  if (r.sessions.load() == 0) {
    r.dead.clear();
    r.dead.shrink_to_fit();
  }
}

void addRegisteredJitCode(model::Profile& p, uint64_t from_ns, uint64_t to_ns) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  const uint64_t start = p.meta().start_monotonic_ns;
  const auto pid = static_cast<int32_t>(::getpid());
  uint64_t copied = 0;
  auto add = [&](const Entry& e, bool live) {
    if (e.load_ns > to_ns || e.unload_ns < from_ns) return;
    model::JitCode c;
    c.pid = pid;
    c.start = e.start;
    c.size = e.size;
    c.load_ns = relative(e.load_ns, start);
    c.unload_ns = e.unload_ns == UINT64_MAX ? model::kNeverUnloaded : relative(e.unload_ns, start);
    c.name = p.internString(e.name);
    c.source = model::JitSource::kApi;
    for (const Line& l : e.lines) c.lines.push_back({l.offset, p.internString(l.file), l.line});
    // Live code is still in memory: its bytes, for reports that show code.
    if (live && copied + e.size <= kMaxProfileCodeBytes) {
      c.bytes.resize(e.size);
      iovec local{c.bytes.data(), c.bytes.size()};
      iovec remote{reinterpret_cast<void*>(e.start), c.bytes.size()};
      if (::process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(e.size)) {
        copied += e.size;
      } else {
        c.bytes.clear();
      }
    }
    p.addJitCode(std::move(c));
  };
  // In registration order, so that of two loads at one time the later wins.
  std::vector<const Entry*> all;
  all.reserve(r.dead.size() + r.live.size());
  for (const Entry& e : r.dead) all.push_back(&e);
  for (const auto& [s, e] : r.live) all.push_back(&e);
  std::stable_sort(all.begin(), all.end(),
                   [](const Entry* a, const Entry* b) { return a->load_ns < b->load_ns; });
  for (const Entry* e : all) add(*e, e->unload_ns == UINT64_MAX);
}

std::string ownJitdumpPath() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.writer.path();
}

}  // namespace strobe::inproc
