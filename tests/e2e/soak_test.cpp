// Soak: `strobe record -F 999` of 60 s of churn (fixture_soak: 2,000
// short-lived threads, a fork + exec every 250 ms, a dlopen + dlclose every
// 100 ms, beside one steady thread). While it records, strobe's own
// /proc/PID/status (VmRSS, Threads) and open descriptors are read every
// second; afterwards the recording is checked against what the workload
// measured of itself (getrusage, the steady thread's CPU clock):
// - no descriptor or thread growth after the first quarter, and memory
//   growth bounded by what the samples recorded since then need;
// - no samples lost beyond what strobe reports: the recorded CPU time plus
//   the reported losses and unsampled CPU covers the workload's CPU, and
//   the unsampled CPU is no more than the tasks' last part-periods (a ring
//   that stopped taking samples showed as 25 s of it);
// - the steady thread's share within 3 points of its own CPU clock's.
// Label soak, SERIAL: it wants both cores for a minute.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

constexpr int kSeconds = 60;
constexpr int kThreads = 2000;

struct Reading {
  double at_s = 0;
  long rss_kb = -1;
  long threads = -1;
  long fds = -1;
};

// strobe's status now; rss_kb < 0 once it has exited (or is a zombie).
Reading readStatus(int pid) {
  Reading r;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  bool zombie = false;
  while (std::getline(status, line)) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "State:") {
      std::string state;
      in >> state;
      zombie = state == "Z";
    } else if (key == "VmRSS:") {
      in >> r.rss_kb;
    } else if (key == "Threads:") {
      in >> r.threads;
    }
  }
  if (zombie) return Reading{};
  if (DIR* d = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    r.fds = 0;
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') ++r.fds;
    }
    ::closedir(d);
  }
  return r;
}

TEST(Soak, ChurnForAMinuteAt999Hz) {
  const std::string dir = makeTempDir();
  const std::string db = dir + "/soak.db";
  Background strobe({kStrobe, "record", "-F", "999", "-o", db, "--", kFixtures + "fixture_soak",
                     std::to_string(kSeconds), std::to_string(kThreads),
                     kFixtures + "libfixture_burn.so"});
  const auto start = std::chrono::steady_clock::now();
  std::vector<Reading> readings;
  while (true) {
    Reading r = readStatus(strobe.pid());
    if (r.rss_kb < 0) break;
    r.at_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    readings.push_back(r);
    if (r.at_s > 4 * kSeconds) break;  // hung: the checks below fail
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Ran ran = strobe.wait();
  ASSERT_EQ(ran.status, 0) << ran.err;
  ASSERT_GE(readings.size(), static_cast<size_t>(kSeconds * 3 / 4)) << "strobe ran too briefly";

  // The first quarter warms up (every file mapped once, rings, tables);
  // the readings from the quarter mark to the last one while recording
  // must then stay flat.
  const Reading* quarter = nullptr;
  for (const Reading& r : readings) {
    if (r.at_s >= kSeconds / 4.0) {
      quarter = &r;
      break;
    }
  }
  ASSERT_NE(quarter, nullptr);
  long max_fds = 0;
  long max_threads = 0;
  long last_rss = 0;
  for (const Reading& r : readings) {
    if (r.at_s < quarter->at_s || r.at_s > kSeconds) continue;  // the end writes the recording
    max_fds = std::max(max_fds, r.fds);
    max_threads = std::max(max_threads, r.threads);
    last_rss = r.rss_kb;
  }
  std::printf(
      "strobe at %.0f s: %ld kB, %ld threads, %ld fds; until %d s: max %ld threads, "
      "%ld fds, %ld kB at the end\n",
      quarter->at_s, quarter->rss_kb, quarter->threads, quarter->fds, kSeconds, max_threads,
      max_fds, last_rss);
  EXPECT_LE(max_fds, quarter->fds + 2) << "strobe's open descriptors grew while recording";
  EXPECT_LE(max_threads, quarter->threads) << "strobe's threads grew while recording";

  model::Profile p = loadRecording(db);
  const model::Totals totals = model::totals(p);
  const double recorded_s = static_cast<double>(totals.weight) / 1e9;
  const uint64_t period = 1000000000ULL / 999;
  const double lost_s = static_cast<double>(p.meta().lost_samples * period) / 1e9;
  const double unsampled_s = static_cast<double>(p.meta().unsampled_count) / 1e9;
  const double cpu_s = static_cast<double>(outputNumber(ran.out, "cpu_ns")) / 1e9;
  const double children_s = static_cast<double>(outputNumber(ran.out, "children_cpu_ns")) / 1e9;
  const double user_s = static_cast<double>(outputNumber(ran.out, "user_ns")) / 1e9;
  const double steady_s = static_cast<double>(outputNumber(ran.out, "steady_cpu_ns")) / 1e9;
  const int32_t steady_tid = static_cast<int32_t>(outputNumber(ran.out, "steady_tid"));
  std::printf(
      "recorded %.2f s of CPU in %zu samples, %llu lost (%.2f s), %.2f s unsampled, %llu "
      "throttles (%.2f s, %.2f s of it weighted); the workload measured %.2f s (%.2f s of it "
      "user time, %.2f s in children), the steady thread %.2f s\n",
      recorded_s, p.samples().size(), static_cast<unsigned long long>(p.meta().lost_samples),
      lost_s, unsampled_s, static_cast<unsigned long long>(p.meta().throttle_events),
      static_cast<double>(p.meta().throttled_ns) / 1e9,
      static_cast<double>(p.meta().throttle_weighted_ns) / 1e9, cpu_s + children_s, user_s,
      children_s, steady_s);
  ASSERT_GT(steady_s, 2.0) << "the steady thread hardly ran: " << ran.out;

  // Memory: what strobe keeps per sample is a 32-byte Sample (64 with the
  // vector's doubling) and now and then a new stack node or location; past
  // the warm-up RSS may grow by 256 bytes for each sample recorded since,
  // plus 16 MB for the allocator's arenas.
  size_t later_samples = 0;
  const uint64_t quarter_ns = static_cast<uint64_t>(quarter->at_s * 1e9);
  for (const model::Sample& s : p.samples()) later_samples += s.time_ns >= quarter_ns ? 1 : 0;
  EXPECT_LE(last_rss, quarter->rss_kb + static_cast<long>(later_samples / 4) + 16 * 1024)
      << "strobe's memory grew by " << last_rss - quarter->rss_kb << " kB for " << later_samples
      << " samples";

  // Nothing lost silently: all the workload's user time (kernel time may
  // or may not be sampled) is in the recording or in what it says it lost,
  // but for the part of a sampling period each task runs after its last
  // sample (at most one period for each thread and child), and 2% for
  // getrusage's split of CPU time into user and system time.
  const double accounted = recorded_s + lost_s + unsampled_s;
  const double tails_s =
      static_cast<double>((kThreads + outputNumber(ran.out, "children") + 2) * period) / 1e9;
  EXPECT_GE(accounted, 0.98 * user_s - tails_s)
      << "samples lost without being reported (tails of tasks: " << tails_s << " s)";
  // And what the events counted but no sample covers is those tails (one
  // per task and CPU it ran on), not a stretch of time the kernel stopped
  // sampling in.
  EXPECT_LE(unsampled_s, 2 * tails_s) << "sampling stopped for part of the run";
  EXPECT_LE(recorded_s, 1.05 * (cpu_s + children_s) + 0.1);

  // The steady thread's share of the profile against its own CPU clock's
  // share of all the workload's CPU time.
  uint64_t steady_weight = 0;
  for (const model::Sample& s : p.samples()) {
    if (s.tid == steady_tid) steady_weight += s.weight;
  }
  const double profile_share = 100.0 * static_cast<double>(steady_weight) / 1e9 / accounted;
  const double clock_share = 100.0 * steady_s / (cpu_s + children_s);
  std::printf("steady thread: %.1f%% of the profile, %.1f%% by its CPU clock\n", profile_share,
              clock_share);
  EXPECT_NEAR(profile_share, clock_share, 3.0);
  if (HasFailure()) {
    std::printf("the recording is kept for a look: %s\nstrobe said:\n%s\n", db.c_str(),
                ran.err.c_str());
  } else {
    removeTree(dir);
  }
}

}  // namespace
}  // namespace strobe::test
