// Where libstrobe's in-process cost goes: runs the overhead workload's work
// (bench/overhead/workload.cpp) on N threads under a session (or none) and
// reports, per kind of thread, the CPU time (/proc/thread-self/schedstat,
// ns), context switches and migrations (/proc/thread-self/sched), plus the
// drain thread's own figures: its CPU, how often it woke, and its CPU per
// kept sample. Links libstrobe's core statically (with its pthread_create
// interposer), so one binary is one version of libstrobe.
// A second mode times Collector::add alone on synthetic stacks.
// Usage: bench_inproc_breakdown perf|timer|none HZ [THREADS] [ROUNDS]
//        bench_inproc_breakdown collector [SAMPLES]
//        bench_inproc_breakdown list [TIMES]   (one /proc/self/task listing)
#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "inproc/collector.hpp"
#include "inproc/session.hpp"
#include "overhead/work.hpp"

namespace {

struct ThreadStat {
  std::string comm;
  uint64_t cpu_ns = 0;
  uint64_t voluntary = 0;
  uint64_t involuntary = 0;
  uint64_t migrations = 0;
};

uint64_t schedField(const std::string& text, const char* key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  at = text.find(':', at);
  return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + 1, nullptr, 10);
}

ThreadStat readStat(const std::string& dir) {
  ThreadStat s;
  std::ifstream comm(dir + "/comm");
  std::getline(comm, s.comm);
  std::ifstream schedstat(dir + "/schedstat");
  schedstat >> s.cpu_ns;
  std::ifstream sched(dir + "/sched");
  std::stringstream text;
  text << sched.rdbuf();
  s.voluntary = schedField(text.str(), "nr_voluntary_switches");
  s.involuntary = schedField(text.str(), "nr_involuntary_switches");
  s.migrations = schedField(text.str(), "se.nr_migrations");
  return s;
}

std::mutex g_mu;
std::vector<ThreadStat> g_workers;

void worker(uint64_t rounds) {
  strobe::bench::work(rounds);
  ThreadStat s = readStat("/proc/thread-self");
  std::lock_guard lock(g_mu);
  g_workers.push_back(s);
}

int collectorBench(uint64_t n) {
  using strobe::inproc::Collector;
  // 200 distinct 16-frame stacks sharing a 10-frame trunk, as a real
  // program's hot loop would give.
  std::vector<std::vector<uint64_t>> stacks(200);
  for (size_t i = 0; i < stacks.size(); ++i) {
    for (uint64_t d = 0; d < 16; ++d) {
      stacks[i].push_back(d < 6 ? 0x401000 + i * 64 + d : 0x500000 + d * 0x100);
    }
  }
  Collector c;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    const auto& s = stacks[(i * 7919) % stacks.size()];
    c.add(static_cast<int32_t>(1000 + i % 4), i * 1000, 1001001, s.data(),
          static_cast<uint32_t>(s.size()));
  }
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("collector_add_ns=%.1f samples=%llu\n", static_cast<double>(ns) / n,
              static_cast<unsigned long long>(n));
  return 0;
}

// The cost of one /proc/self/task listing, as the drain thread's rescans do.
int listBench(uint64_t n) {
  auto t0 = std::chrono::steady_clock::now();
  size_t found = 0;
  for (uint64_t i = 0; i < n; ++i) found += strobe::inproc::listThreads().size();
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("list_threads_ns=%.0f threads=%zu\n", static_cast<double>(ns) / n, found / n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strobe::inproc;
  const std::string engine = argc > 1 ? argv[1] : "perf";
  if (engine == "list") return listBench(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000);
  if (engine == "collector")
    return collectorBench(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000000);
  const uint32_t hz = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 999;
  const int nthreads = argc > 3 ? std::atoi(argv[3]) : 2;
  const uint64_t rounds = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 60000;
  const bool profile = engine != "none";
  if (profile) {
    Options o;
    o.frequency = hz;
    o.engine = engine == "timer" ? EngineKind::kTimer : EngineKind::kPerf;
    if (strobe::Status s = startSession(o); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.error().describe().c_str());
      return 1;
    }
  }
  const uint64_t wall0 = strobe::monotonicNs();
  std::vector<std::thread> threads;
  for (int i = 0; i < nthreads; ++i) threads.emplace_back(worker, rounds);
  for (auto& t : threads) t.join();
  const double wall_s = static_cast<double>(strobe::monotonicNs() - wall0) / 1e9;
  // The threads left: this one and libstrobe's own.
  ThreadStat drain;
  const int32_t self = static_cast<int32_t>(::gettid());
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9' || std::atoi(e->d_name) == self) continue;
      ThreadStat s = readStat(std::string("/proc/self/task/") + e->d_name);
      drain.cpu_ns += s.cpu_ns;
      drain.voluntary += s.voluntary;
      drain.involuntary += s.involuntary;
      drain.migrations += s.migrations;
    }
    ::closedir(d);
  }
  uint64_t samples = 0, dropped = 0;
  if (profile) {
    (void)stopSession();
    samples = sampleCount();
    dropped = droppedSamples();
  }
  ThreadStat w;
  for (const ThreadStat& s : g_workers) {
    w.cpu_ns += s.cpu_ns;
    w.voluntary += s.voluntary;
    w.involuntary += s.involuntary;
    w.migrations += s.migrations;
  }
  std::printf(
      "engine=%s hz=%u threads=%d wall_s=%.3f worker_cpu_ns=%llu worker_vol=%llu "
      "worker_invol=%llu worker_migr=%llu drain_cpu_ns=%llu drain_wakeups=%llu drain_invol=%llu "
      "samples=%llu dropped=%llu drain_ns_per_sample=%.0f wakeups_per_s=%.1f\n",
      engine.c_str(), hz, nthreads, wall_s, static_cast<unsigned long long>(w.cpu_ns),
      static_cast<unsigned long long>(w.voluntary), static_cast<unsigned long long>(w.involuntary),
      static_cast<unsigned long long>(w.migrations), static_cast<unsigned long long>(drain.cpu_ns),
      static_cast<unsigned long long>(drain.voluntary),
      static_cast<unsigned long long>(drain.involuntary), static_cast<unsigned long long>(samples),
      static_cast<unsigned long long>(dropped),
      samples == 0 ? 0.0 : static_cast<double>(drain.cpu_ns) / static_cast<double>(samples),
      static_cast<double>(drain.voluntary) / wall_s);
  return 0;
}
