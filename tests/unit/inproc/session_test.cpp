// libstrobe sessions in this process: the 6 : 3 : 1 split on 4 threads (2 with the timer engine)
// with each engine (against the threads' own clocks), wall mode on a half-sleeping thread,
// coexistence with a program's own SIGPROF handler, and fork. Shares are asserted within
// tolerances, never exact counts. This binary includes libstrobe's pthread_create interposer
// (threads.cpp), as a program linked with it does.
#include <gtest/gtest.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "channel/consumer.hpp"
#include "inproc/engine.hpp"
#include "inproc/session.hpp"
#include "inproc/spans.hpp"
#include "model/aggregate.hpp"
#include "workload.hpp"

namespace strobe::inproc {
namespace {

using test::g_unit;

// Calls f(tid, function names leaf first, weight) for each sample.
template <typename F>
void forEachSample(const model::Profile& p, F&& f) {
  for (const auto& s : p.samples()) {
    std::vector<std::string> names;
    p.forEachFrame(s.stack, [&](model::LocationId id) {
      const auto& loc = p.locations()[id];
      if (loc.lines.empty()) {
        names.push_back(model::unresolvedName(p, loc));
        return;
      }
      for (const auto& l : loc.lines) names.push_back(p.str(p.functions()[l.function].name));
    });
    f(s.tid, names, s.weight);
  }
}

struct Shares {
  std::map<std::string, uint64_t> self;     // leaf function -> weight
  std::map<std::string, uint64_t> samples;  // leaf function -> samples
  uint64_t total = 0, total_samples = 0;
  double pct(const std::string& fn) const {
    auto it = self.find(fn);
    return total == 0 || it == self.end() ? 0.0 : 100.0 * static_cast<double>(it->second) / total;
  }
};

const std::string kSix = "strobe::test::work_six()";
const std::string kThree = "strobe::test::work_three()";
const std::string kOne = "strobe::test::work_one()";

model::Profile takeLast() {
  model::Profile copy;
  Status s = withLastProfile([&](const model::Profile& p) {
    copy = p;
    return Status{};
  });
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().describe());
  return copy;
}

// A worker thread of profileShares: its tid and what its own clock measured.
struct Worker {
  int32_t tid = 0;
  test::SharesSpent spent;
};

// Runs `thread_count` threads of 6:3:1 work under a session with `o`; returns the
// profile and the workers, whose clocks measure each function when `measure`
// is set.
model::Profile profileShares(const Options& o, int thread_count, int rounds, bool measure,
                             std::vector<Worker>* workers, std::string* engine) {
  Status s = startSession(o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().describe() + " / " + s.error().hint);
  if (!s.ok()) return {};
  *engine = engineName();
  std::vector<std::thread> threads;
  workers->assign(static_cast<size_t>(thread_count), Worker{});
  for (int i = 0; i < thread_count; ++i) {
    threads.emplace_back([w = &(*workers)[i], rounds, measure] {
      w->tid = static_cast<int32_t>(gettid());
      test::shares_worker(rounds, measure ? &w->spent : nullptr);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(stopSession().ok());
  return takeLast();
}

// Each work function's share of the profile against its share of what the
// workers' own clocks measured (6 : 3 : 1 on an idle machine; the work's
// units where nothing was measured), overall and per thread: within 3
// points, or 4 standard errors of the share where the samples are too few
// for 3 points to be a fair bound.
void expectShare(const Shares& got, const std::string& fn, uint64_t spent, uint64_t all) {
  const double want = 100.0 * static_cast<double>(spent) / static_cast<double>(all);
  const uint64_t n = got.samples.count(fn) != 0 ? got.samples.at(fn) : 0;
  const double tolerance = std::max(3.0, 4.0 * model::shareStdErrorPct(n, got.total_samples));
  EXPECT_NEAR(got.pct(fn), want, tolerance)
      << fn << ": " << n << " of " << got.total_samples << " samples";
}

void expectShares(const Shares& got, test::SharesSpent spent) {
  if (spent.six + spent.three + spent.one == 0) spent = {6, 3, 1};
  const uint64_t all = spent.six + spent.three + spent.one;
  ASSERT_GT(all, 0u);
  expectShare(got, kSix, spent.six, all);
  expectShare(got, kThree, spent.three, all);
  expectShare(got, kOne, spent.one, all);
}

void expectSplit(const model::Profile& p, const std::vector<Worker>& workers) {
  Shares all;
  std::map<int32_t, Shares> per;
  test::SharesSpent spent_all;
  for (const Worker& w : workers) {
    spent_all.six += w.spent.six;
    spent_all.three += w.spent.three;
    spent_all.one += w.spent.one;
    per[w.tid];
  }
  forEachSample(p, [&](int32_t tid, const std::vector<std::string>& names, uint64_t w) {
    if (names.empty() || per.count(tid) == 0) return;
    const std::string& leaf = names.front();
    if (leaf != kSix && leaf != kThree && leaf != kOne) return;  // e.g. thread start-up
    for (Shares* s : {&all, &per[tid]}) {
      s->self[leaf] += w;
      s->total += w;
      ++s->samples[leaf];
      ++s->total_samples;
    }
  });
  ASSERT_GT(all.total, 0u);
  expectShares(all, spent_all);
  for (const Worker& w : workers) {
    SCOPED_TRACE("thread " + std::to_string(w.tid));
    const Shares& t = per[w.tid];
    ASSERT_GT(t.total, 0u);
    expectShares(t, w.spent);
  }
  // The work is attributed to the workers, with their callers on the stack.
  uint64_t with_caller = 0;
  forEachSample(p, [&](int32_t, const std::vector<std::string>& names, uint64_t w) {
    if (names.size() >= 2 && names.front() == kSix &&
        names[1] == "strobe::test::shares_worker(int, strobe::test::SharesSpent*)")
      with_caller += w;
  });
  EXPECT_GT(with_caller, all.self[kSix] * 9 / 10);
  if (getenv("STROBE_TEST_DUMP")) {
    int k = 0;
    forEachSample(p, [&](int32_t tid, const std::vector<std::string>& names, uint64_t w) {
      if (k++ > 30) return;
      std::string line = std::to_string(tid) + " " + std::to_string(w) + ":";
      for (auto& n : names) line += " | " + n;
      fprintf(stderr, "%s\n", line.c_str());
    });
  }
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { g_unit = 100000; }
  void TearDown() override {
    if (sessionRunning()) (void)stopSession();
  }
};

TEST_F(SessionTest, PerfEngineSplitsSixThreeOneOverallAndPerThread) {
  Options o;
  o.frequency = 999;
  o.engine = EngineKind::kPerf;
  // Probe: perf_event may be refused on this machine.
  if (Status s = startSession(o); !s.ok()) {
    GTEST_SKIP() << "perf_event refused here: " << s.error().describe();
  }
  ASSERT_TRUE(stopSession().ok());
  std::vector<Worker> workers;
  std::string engine;
  // The threads' clocks are the truth: under load (other tests beside this
  // one) the split drifts from the work's 6 : 3 : 1 units by over 3 points.
  model::Profile p = profileShares(o, 4, 900, /*measure=*/true, &workers, &engine);
  EXPECT_EQ(engine, "perf");
  expectSplit(p, workers);
}

TEST_F(SessionTest, TimerEngineSplitsSixThreeOneOverallAndPerThread) {
  Options o;
  o.frequency = 999;
  o.engine = EngineKind::kTimer;
  std::vector<Worker> workers;
  std::string engine;
  // CPU-clock timers expire at scheduler ticks (CONFIG_HZ, often 250), so
  // this engine takes fewer samples per CPU second: give it more work. 4500
  // rounds give ~1,850 samples a thread, so a thread's work_six share is
  // held to 4.6 points (4 standard errors of 1.14) and the overall split to
  // 3.2: the tolerance widens with fewer samples, so the rounds trade the
  // bound against CPU time (9000 rounds, 3.2 points a thread, cost 37
  // CPU-seconds, 58 under ASan, alone on the machine).
  // Unmeasured: with clock_gettime(CLOCK_THREAD_CPUTIME_ID) between the
  // functions this engine agreed with those clocks in 10 runs of 12, but in
  // two work_six weighed 64% against 59.8% by the clocks while its sample
  // count gave 59.4%: some samples' overrun weights are far from the CPU
  // time they stand for (not understood yet). Two threads, not four: every
  // thread beyond the two that show the split per thread costs CPU for
  // nothing.
  model::Profile p = profileShares(o, 2, 4500, /*measure=*/false, &workers, &engine);
  EXPECT_EQ(engine, "timer");
  expectSplit(p, workers);
}

TEST_F(SessionTest, WallModeSamplesASleepingThreadByItsWallTime) {
  Options o;
  o.frequency = 499;
  o.mode = Mode::kWall;
  ASSERT_TRUE(startSession(o).ok());
  EXPECT_EQ(engineName(), "timer");
  std::atomic<int32_t> tid{0};
  uint64_t burn_ns = 0, sleep_ns = 0;
  std::thread t([&] {
    tid = static_cast<int32_t>(gettid());
    for (int i = 0; i < 60; ++i) {
      uint64_t a = test::nowNs(CLOCK_MONOTONIC);
      test::burn_phase(10'000'000);
      uint64_t b = test::nowNs(CLOCK_MONOTONIC);
      test::sleep_phase(10'000'000);
      uint64_t c = test::nowNs(CLOCK_MONOTONIC);
      burn_ns += b - a;
      sleep_ns += c - b;
    }
  });
  t.join();
  ASSERT_TRUE(stopSession().ok());
  model::Profile p = takeLast();
  uint64_t total = 0, sleeping = 0, burning = 0;
  forEachSample(p, [&](int32_t id, const std::vector<std::string>& names, uint64_t w) {
    if (id != tid.load()) return;
    total += w;
    // libc's sleeping functions keep no frame pointer, so their caller
    // (sleep_phase) may not show: the sleep stack is any of them.
    bool asleep = false;
    for (const auto& n : names) {
      asleep = asleep || n == "strobe::test::sleep_phase(unsigned long)" ||
               n == "clock_nanosleep" || n == "__clock_nanosleep" || n == "nanosleep" ||
               n == "__GI___clock_nanosleep";
    }
    (asleep ? sleeping : burning) += w;
  });
  if (getenv("STROBE_TEST_DUMP")) {
    int k = 0;
    forEachSample(p, [&](int32_t id, const std::vector<std::string>& names, uint64_t w) {
      if (id != tid.load() || k++ > 40) return;
      std::string line = std::to_string(w) + ":";
      for (auto& n : names) line += " | " + n;
      fprintf(stderr, "%s\n", line.c_str());
    });
  }
  ASSERT_GT(total, 0u);
  double expected = 100.0 * static_cast<double>(sleep_ns) / static_cast<double>(burn_ns + sleep_ns);
  EXPECT_NEAR(100.0 * static_cast<double>(sleeping) / total, expected, 6.0);
  EXPECT_NEAR(100.0 * static_cast<double>(burning) / total, 100.0 - expected, 6.0);
}

TEST_F(SessionTest, PerfEngineRefusesWallMode) {
  Options o;
  o.mode = Mode::kWall;
  o.engine = EngineKind::kPerf;
  Status s = startSession(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the perf engine samples CPU time only, not wall-clock time");
}

TEST_F(SessionTest, SecondStartFailsAndStopWithoutStartFails) {
  ASSERT_TRUE(startSession(Options{}).ok());
  Status again = startSession(Options{});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "a profiling session is already running");
  ASSERT_TRUE(stopSession().ok());
  Status none = stopSession();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no profiling session is running");
}

// A second reader joining while the session records (strobe record -p,
// strobe agent's role discovery) must not cost the session the spans open
// then: they began while it recorded. The new reader gets only what began
// after it joined. (The packaged spans example lost one open span per
// worker, 796 of 800, when a strobe agent test beside it joined.)
TEST_F(SessionTest, AReaderJoiningLaterLeavesTheSessionsOpenSpans) {
  struct Names : channel::Sink {
    std::vector<std::string> names;
    void span(const channel::SpanEvent& s) override { names.emplace_back(s.name); }
    void role(int32_t, std::string_view, int32_t) override {}
  };
  ASSERT_TRUE(startSession(Options{}).ok());
  spans::begin("outer");
  spans::begin("held");
  channel::Producer* producer = spans::producer();
  ASSERT_NE(producer, nullptr);
  auto other = channel::Consumer::borrow(producer->base(), producer->size());
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->join(channel::kReaderExternal, static_cast<int32_t>(::getpid())).ok());
  spans::end();  // held
  spans::begin("after");
  spans::end();
  spans::end();  // outer
  Names seen_by_other;
  (*other)->drain(seen_by_other);
  (*other)->leave();
  ASSERT_TRUE(stopSession().ok());
  const model::Profile p = takeLast();
  std::vector<std::string> recorded;
  for (const model::Span& s : p.spans()) recorded.emplace_back(p.str(s.name));
  std::sort(recorded.begin(), recorded.end());
  EXPECT_EQ(recorded, (std::vector<std::string>{"after", "held", "outer"}));
  EXPECT_EQ(seen_by_other.names, (std::vector<std::string>{"after"}));
  EXPECT_EQ(droppedSpans(), 0u);
}

TEST_F(SessionTest, BadOptionsAreRefused) {
  Options o;
  o.frequency = 0;
  Status s = startSession(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "sampling frequency 0 Hz is out of range");
  o = Options{};
  o.max_depth = 1000;
  s = startSession(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "maximum stack depth 1000 is out of range");
}

// The timer engine sizes each thread's buffer from the rate (250 ms of
// samples), not a fixed 1024 samples (~540 KB per thread, 217 MB for 400
// threads): docs/LIBSTROBE.md states the memory per thread.
TEST_F(SessionTest, TimerEngineBuffersFollowTheRate) {
  Options o;
  o.engine = EngineKind::kTimer;
  o.frequency = 99;
  EXPECT_EQ(timerRingSamples(o), 32u);
  EXPECT_EQ(timerRingBytes(o), 32u * (3 + 64) * 8);  // 16.75 KiB
  o.frequency = 999;
  EXPECT_EQ(timerRingSamples(o), 256u);
  o.frequency = 10000;  // CPU timers fire at most once per tick
  EXPECT_EQ(timerRingSamples(o), 256u);
  o.mode = Mode::kWall;
  EXPECT_EQ(timerRingSamples(o), 4096u);
  o.buffer_samples = 100;  // asked for: as asked (a power of two)
  EXPECT_EQ(timerRingSamples(o), 100u);

  // Measured: the heap a running 99 Hz session takes for each new thread.
#if defined(STROBE_TEST_UNDER_ASAN)
  GTEST_SKIP() << "the heap per thread is not measured under ASan: its allocator replaces "
                  "malloc's, whose statistics this reads; the plain build measures it";
#endif
  o = Options{};
  o.engine = EngineKind::kTimer;
  o.frequency = 99;
  ASSERT_TRUE(startSession(o).ok());
  constexpr int kThreads = 100;
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  bool release = false;
  auto heap = [] {
    struct mallinfo2 mi = ::mallinfo2();
    return static_cast<double>(mi.uordblks + mi.hblkhd);
  };
  const double before = heap();
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      std::unique_lock lock(mu);
      ++started;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    });
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return started == kThreads; });
  }
  const double per_thread = (heap() - before) / kThreads;
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  ASSERT_TRUE(stopSession().ok());
  const double ring = static_cast<double>(timerRingBytes(o));
  std::printf("timer engine at 99 Hz: %.0f bytes of heap per thread (ring %.0f)\n", per_thread,
              ring);
  EXPECT_GT(per_thread, ring);  // the rings are in what was measured
  EXPECT_LT(per_thread, ring + 4096);
}

void programHandler(int) {}

TEST_F(SessionTest, TimerEngineRefusesAProgramsSigprofHandlerAndRestoresTheOldOne) {
  struct sigaction sa {
  }, old{};
  sa.sa_handler = programHandler;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGPROF, &sa, &old), 0);
  Options o;
  o.engine = EngineKind::kTimer;
  Status s = startSession(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the program already handles SIGPROF, which the timer engine needs");
  sigaction(SIGPROF, &old, nullptr);

  // A session restores the disposition it found (here: the default).
  ASSERT_TRUE(startSession(o).ok());
  test::work_six();
  ASSERT_TRUE(stopSession().ok());
  struct sigaction now {};
  sigaction(SIGPROF, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

std::atomic<int> g_program_sigprofs{0};
std::atomic<uint64_t> g_last_program_sigprof_ns{0};
void countingHandler(int) {
  g_program_sigprofs.fetch_add(1);
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  g_last_program_sigprof_ns =
      static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t nowMonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// A program that installs its own SIGPROF handler while the timer engine
// runs: the engine notices while running (its 100 ms check), stops its
// timers (the program's handler gets at most that long of its signals,
// not the rest of the session's), leaves the program's handler in place at
// stop, and says so; the samples taken before are kept.
TEST_F(SessionTest, TimerEngineStopsWhenTheProgramTakesSigprofOver) {
  Options o;
  o.engine = EngineKind::kTimer;
  o.frequency = 999;
  struct sigaction before {};
  sigaction(SIGPROF, nullptr, &before);
  ASSERT_TRUE(startSession(o).ok());
  test::burn_phase(300'000'000);
  struct sigaction sa {};
  sa.sa_handler = countingHandler;
  sigemptyset(&sa.sa_mask);
  g_program_sigprofs = 0;
  ASSERT_EQ(sigaction(SIGPROF, &sa, nullptr), 0);
  const uint64_t taken_over = nowMonotonicNs();
  test::burn_phase(600'000'000);
  const uint64_t burnt = nowMonotonicNs();
  const int during = g_program_sigprofs.load();
  ASSERT_TRUE(stopSession().ok());
  Status early = samplingStoppedEarly();
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().message.rfind("the program installed its own SIGPROF handler over "
                                        "libstrobe's (found ",
                                        0),
            0u)
      << early.error().message;
  EXPECT_NE(early.error().message.find(" s into the session): the timer engine stopped sampling "
                                       "then"),
            std::string::npos)
      << early.error().message;
  EXPECT_EQ(early.error().hint, kStoppedEarlyHint);
  struct sigaction now {};
  sigaction(SIGPROF, nullptr, &now);
  EXPECT_EQ(now.sa_handler, countingHandler) << "the program's handler must stay";
  sigaction(SIGPROF, &before, nullptr);
  // The program's handler stops getting libstrobe's signals within the
  // engine's 100 ms check (300 ms allowed for a loaded machine), long before
  // the 600 ms of CPU burnt after the takeover end.
  ASSERT_GT(burnt - taken_over, 600'000'000u);
  const uint64_t last = std::max(g_last_program_sigprof_ns.load(), taken_over);
  EXPECT_LT(last - taken_over, 300'000'000u)
      << during << " signals, the last " << (last - taken_over) / 1'000'000
      << " ms after the takeover, " << (burnt - taken_over) / 1'000'000 << " ms of burning";
  model::Profile p = takeLast();
  EXPECT_EQ(p.meta().stopped_reason, early.error().message);
  // The 300 ms before the takeover are in the profile.
  EXPECT_GT(model::totals(p).weight, 200'000'000u);
  // The next session starts afresh.
  ASSERT_TRUE(startSession(o).ok());
  test::work_six();
  ASSERT_TRUE(stopSession().ok());
  EXPECT_TRUE(samplingStoppedEarly().ok());
}

TEST_F(SessionTest, ForkedChildHasNoSessionAndCanProfileItself) {
#if defined(STROBE_TEST_UNDER_ASAN)
  // GCC 12's ASan allocator keeps no fork handler: a lock another thread
  // held at fork stays held in the child, whose new session then blocks in
  // its first free(). glibc's malloc, which programs run with, resets its
  // locks at fork; the plain build runs this test. (Not rechecked with
  // clang 16's runtime, which the sanitized build uses now.)
  GTEST_SKIP() << "under ASan a forked child can deadlock in the sanitizer's allocator "
                  "(no fork handler in GCC 12's libasan); run in the plain build";
#endif
  for (EngineKind kind : {EngineKind::kTimer, EngineKind::kAuto}) {
    Options o;
    o.frequency = 999;
    o.engine = kind;
    ASSERT_TRUE(startSession(o).ok());
    std::thread busy([] { test::shares_worker(20); });
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The child: no session, and a new one works.
      int rc = sessionRunning() ? 10 : 0;
      if (rc == 0 && !startSession(o).ok()) rc = 11;
      test::shares_worker(5);
      if (rc == 0 && !stopSession().ok()) rc = 12;
      _exit(rc);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    busy.join();
    ASSERT_TRUE(stopSession().ok());
  }
}

}  // namespace
}  // namespace strobe::inproc
