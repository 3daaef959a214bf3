// End to end: off-CPU and wall time (record --off-cpu, report --view). The
// fixture measures its own time in each function with CLOCK_MONOTONIC; the
// wall view must agree with it within 3 points, the off-CPU stacks reach
// the thread's entry, the CPU view matches a plain recording, and every
// target kind (a command, -p, -P, -a) records off-CPU time.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <span>
#include <sstream>

#include "model/aggregate.hpp"
#include "model/filter.hpp"
#include "model/measure.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kOffCpu = kFixtures + "fixture_offcpu";
const char* const kFunctions[] = {"burn", "nap", "wait_pipe", "wait_lock"};

class OffCpuTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  Ran record(const std::string& db, std::vector<std::string> opts, std::vector<std::string> cmd) {
    std::vector<std::string> argv = {kStrobe, "record", "-o", path(db)};
    argv.insert(argv.end(), opts.begin(), opts.end());
    if (!cmd.empty()) argv.emplace_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return runProcess(argv);
  }
  Ran report(const std::string& db, std::vector<std::string> opts) {
    std::vector<std::string> argv = {kStrobe, "report", path(db)};
    argv.insert(argv.end(), opts.begin(), opts.end());
    return runProcess(argv);
  }
  std::string dir_;
};

// The fixture's own figures: name -> ns.
std::map<std::string, uint64_t> fixtureFigures(const std::string& out) {
  std::map<std::string, uint64_t> m;
  std::regex field(R"((\w+)=(\d+))");
  for (std::sregex_iterator it(out.begin(), out.end(), field), end; it != end; ++it) {
    m[(*it)[1]] = std::stoull((*it)[2]);
  }
  return m;
}

// The samples of one view and of the thread named `thread` (of process
// `pid` when nonzero: a whole-system recording has other threads so named).
model::Profile select(const model::Profile& p, model::View view, const std::string& thread,
                      int32_t pid = 0) {
  model::SampleFilter f;
  f.view = view;
  if (!thread.empty()) f.threads = {thread};
  if (pid != 0) {
    for (const model::Thread& t : p.threads()) {
      if (t.pid == pid) f.tids.push_back(t.tid);
    }
    if (f.tids.empty()) f.tids.push_back(-1);
  }
  return model::filterSamples(p, f);
}

// TOTAL share (percent) of a function: its time with its callees.
double totalShare(const model::Profile& p, const std::string& name) {
  const uint64_t total = model::totals(p).weight;
  for (const auto& r : model::topTable(p, model::GroupBy::kFunction)) {
    if (r.function == name && total != 0) {
      return 100.0 * static_cast<double>(r.total) / static_cast<double>(total);
    }
  }
  return 0.0;
}

std::string functionOf(const model::Profile& p, model::LocationId l) {
  const model::Location& loc = p.locations()[l];
  if (loc.lines.empty()) return {};
  return p.str(p.functions()[loc.lines.back().function].name);
}

// The functions of a stack, leaf first (the outermost of each inline chain).
std::vector<std::string> stackFunctions(const model::Profile& p, model::StackId s) {
  std::vector<std::string> out;
  p.forEachFrame(s, [&](model::LocationId l) { out.push_back(functionOf(p, l)); });
  return out;
}

bool reachesEntry(const std::vector<std::string>& frames) {
  static const std::set<std::string> kEntries = {"clone3",  "__clone3",     "clone",
                                                 "__clone", "start_thread", "_start"};
  return !frames.empty() && kEntries.count(frames.back()) != 0;
}

// Off-CPU weight of the samples whose stack holds `fn`, and the part of it
// whose stack reaches the thread's entry, by reason.
struct OffCpuOf {
  uint64_t weight = 0;
  uint64_t complete = 0;
  std::map<model::OffCpuReason, uint64_t> by_reason;
};
OffCpuOf offCpuOf(const model::Profile& p, const std::string& fn) {
  OffCpuOf o;
  for (const model::Sample& s : p.samples()) {
    if (s.kind != model::SampleKind::kOffCpu) continue;
    auto frames = stackFunctions(p, s.stack);
    if (std::find(frames.begin(), frames.end(), fn) == frames.end()) continue;
    o.weight += s.weight;
    if (reachesEntry(frames)) o.complete += s.weight;
    o.by_reason[s.off_cpu_reason] += s.weight;
  }
  return o;
}

// Acceptance 1: the wall view's shares of burn, nap, wait_pipe and
// wait_lock in the worker thread against the fixture's own clock.
TEST_F(OffCpuTest, WallSharesMatchTheFixturesOwnClock) {
  Ran r = record("rec.db", {"--off-cpu", "-g", "auto", "-F", "999"}, {kOffCpu, "1.5"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto own = fixtureFigures(r.out);
  ASSERT_GT(own["loop_ns"], 0u) << r.out;
  ASSERT_GE(own["iterations"], 10u) << r.out;
  model::Profile p = loadRecording(path("rec.db"));
  EXPECT_EQ(p.meta().off_cpu, 1u);
  model::Profile wall = select(p, model::View::kWall, "worker");
  // The worker's wall time is its lifetime: the loop, within a few ms.
  const model::TimeSplit split = model::timeSplit(wall.samples());
  EXPECT_NEAR(static_cast<double>(split.wallNs()), static_cast<double>(own["loop_ns"]),
              0.03 * static_cast<double>(own["loop_ns"]));
  for (const char* fn : kFunctions) {
    const double want = 100.0 * static_cast<double>(own[std::string(fn) + "_ns"]) /
                        static_cast<double>(own["loop_ns"]);
    EXPECT_NEAR(totalShare(wall, fn), want, 3.0) << fn << "\n" << r.out;
  }
  // The three waits are off CPU; burn is off it only when preempted.
  model::Profile off = select(p, model::View::kOffCpu, "worker");
  EXPECT_GT(totalShare(off, "nap"), 30.0);
  OffCpuOf burn = offCpuOf(p, "burn");
  EXPECT_GE(static_cast<double>(burn.by_reason[model::OffCpuReason::kPreempted]),
            0.95 * static_cast<double>(burn.weight));
}

// Acceptance 1: off-CPU stacks of nap and wait_pipe reach the thread's
// entry, and say why each thread blocked (with -k, from the kernel's own
// frames too).
TEST_F(OffCpuTest, OffCpuStacksReachTheThreadsEntryAndSayWhy) {
  Ran r = record("rec.db", {"--off-cpu", "-g", "auto", "-F", "999"}, {kOffCpu, "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = loadRecording(path("rec.db"));
  for (const char* fn : {"nap", "wait_pipe", "wait_lock"}) {
    OffCpuOf o = offCpuOf(p, fn);
    ASSERT_GT(o.weight, 0u) << fn;
    EXPECT_GT(static_cast<double>(o.complete), 0.95 * static_cast<double>(o.weight)) << fn;
  }
  // The C library's function each blocked in says why.
  auto mostly = [&](const char* fn, model::OffCpuReason reason) {
    OffCpuOf o = offCpuOf(p, fn);
    EXPECT_GT(static_cast<double>(o.by_reason[reason]), 0.9 * static_cast<double>(o.weight))
        << fn << " should be mostly " << model::reasonName(reason);
  };
  mostly("nap", model::OffCpuReason::kSleep);
  mostly("wait_pipe", model::OffCpuReason::kIo);
  mostly("wait_lock", model::OffCpuReason::kLock);
  Ran k = record("k.db", {"--off-cpu", "-k", "-g", "auto"}, {kOffCpu, "0.5"});
  ASSERT_EQ(k.status, 0) << k.err;
  model::Profile pk = loadRecording(path("k.db"));
  OffCpuOf nap = offCpuOf(pk, "nap");
  EXPECT_GT(static_cast<double>(nap.by_reason[model::OffCpuReason::kSleep]),
            0.9 * static_cast<double>(nap.weight));
  EXPECT_GT(nap.complete, 0.9 * static_cast<double>(nap.weight));
  // The header states CPU, off-CPU and wall time per thread, and the reasons.
  Ran rep = report("rec.db", {});
  ASSERT_EQ(rep.status, 0) << rep.err;
  for (const char* text :
       {"view:      wall (CPU + off-CPU, summed per stack)", "time:      CPU sampled ",
        "off-CPU:   blocked ", "sleep ", "I/O ", "lock ", "runnable, waiting for a CPU", "THREAD",
        "RUNNABLE", "worker ("}) {
    EXPECT_NE(rep.out.find(text), std::string::npos) << text << "\n" << rep.out;
  }
  // #16 with off-CPU time: the CPU part of the recording is set beside the
  // command's own CPU (its rusage), and agrees with it: off-CPU intervals
  // are not counted as CPU. The kernel's time is in [kernel] on CPU
  // samples; an off-CPU interval is not time in the kernel and has none.
  const model::TimeSplit split = model::timeSplit(std::span<const model::Sample>(p.samples()));
  ASSERT_GT(p.meta().target_cpu_ns, 0u);
  EXPECT_NEAR(static_cast<double>(split.cpu_ns), static_cast<double>(p.meta().target_cpu_ns),
              0.15 * static_cast<double>(p.meta().target_cpu_ns));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(rep.out, m,
                                std::regex("time:      CPU sampled [0-9.]+ [mµ]?s of the "
                                           "command's [0-9.]+ [mµ]?s \\+ off-CPU ")))
      << rep.out;
  for (const model::Sample& s : p.samples()) {
    if (s.kind != model::SampleKind::kOffCpu) continue;
    for (const std::string& f : stackFunctions(p, s.stack)) ASSERT_NE(f, "[kernel]");
  }
}

// Acceptance 1: the CPU view of an off-CPU recording is a CPU profile, as a
// plain recording gives it.
TEST_F(OffCpuTest, CpuViewMatchesAPlainRecording) {
  Ran a = record("off.db", {"--off-cpu", "-g", "auto", "-F", "999"}, {kOffCpu, "1.5"});
  ASSERT_EQ(a.status, 0) << a.err;
  Ran b = record("plain.db", {"-g", "auto", "-F", "999"}, {kOffCpu, "1.5"});
  ASSERT_EQ(b.status, 0) << b.err;
  model::Profile with = select(loadRecording(path("off.db")), model::View::kCpu, "worker");
  model::Profile plain = loadRecording(path("plain.db"));
  EXPECT_EQ(model::defaultView(plain), model::View::kCpu);
  plain = select(plain, model::View::kAuto, "worker");
  for (const char* fn : kFunctions) {
    EXPECT_NEAR(totalShare(with, fn), totalShare(plain, fn), 3.0) << fn;
  }
  EXPECT_GT(totalShare(with, "burn"), 80.0);
  // The worker's CPU: 10 ms per iteration, by its own count.
  auto own = fixtureFigures(a.out);
  const double cpu = static_cast<double>(model::totals(with).weight);
  EXPECT_NEAR(cpu, 10e6 * static_cast<double>(own["iterations"]), 0.15 * cpu);
  // `report --view cpu` shows the same, and says so.
  Ran rep = report("off.db", {"--view", "cpu", "--thread", "worker"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("view:      cpu (CPU time only)"), std::string::npos) << rep.out;
}

TEST_F(OffCpuTest, EveryFormatTakesTheView) {
  Ran r = record("rec.db", {"--off-cpu", "-g", "auto", "-F", "999"}, {kOffCpu, "0.5"});
  ASSERT_EQ(r.status, 0) << r.err;
  // folded: the off-CPU view has nap, the CPU view has (almost) none of it.
  Ran off = report("rec.db", {"--view", "off-cpu", "-f", "folded", "--thread", "worker"});
  Ran cpu = report("rec.db", {"--view", "cpu", "-f", "folded", "--thread", "worker"});
  ASSERT_EQ(off.status, 0) << off.err;
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  auto weightOf = [](const std::string& folded, const std::string& fn) {
    uint64_t w = 0;
    std::istringstream in(folded);
    for (std::string line; std::getline(in, line);) {
      if (line.find(";" + fn + ";") == std::string::npos &&
          line.find(";" + fn + " ") == std::string::npos) {
        continue;
      }
      w += std::stoull(line.substr(line.rfind(' ') + 1));
    }
    return w;
  };
  // nap's own CPU is a few microseconds per call. Kernel time is sampled
  // too, so a CPU sample may land in nanosleep's kernel path (at the
  // wake-up: the CPU-clock timer fires as the thread comes back), under
  // [kernel], each worth a whole period: nap's user code is what the CPU
  // view must (almost) lack.
  auto userWeightOf = [&](const std::string& folded, const std::string& fn) {
    std::string user;
    std::istringstream in(folded);
    for (std::string line; std::getline(in, line);) {
      if (line.find(";[kernel] ") == std::string::npos) user += line + "\n";
    }
    return weightOf(user, fn);
  };
  // A CPU sample can still land in nap's user code (the system call's return
  // path runs a few microseconds per call), so the bound is statistical: at
  // 999 Hz the worker's ~100 ms of CPU is ~100 samples, of which nap's share
  // is expected to be about one; 10% would be far outside chance.
  uint64_t cpu_total = 0;
  {
    std::istringstream in(cpu.out);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) cpu_total += std::stoull(line.substr(line.rfind(' ') + 1));
    }
  }
  EXPECT_LT(userWeightOf(cpu.out, "nap"), cpu_total / 10) << cpu.out;
  EXPECT_GT(weightOf(off.out, "nap"), 10 * userWeightOf(cpu.out, "nap") + 1);
  EXPECT_GT(weightOf(cpu.out, "burn"), 0u);
  Ran wall = report("rec.db", {"-f", "folded", "--thread", "worker"});
  ASSERT_EQ(wall.status, 0) << wall.err;
  EXPECT_EQ(weightOf(wall.out, "nap"), weightOf(off.out, "nap") + weightOf(cpu.out, "nap"));
  EXPECT_EQ(weightOf(wall.out, "burn"), weightOf(off.out, "burn") + weightOf(cpu.out, "burn"));
  // The flame graph: off-CPU frames in blue, the title names the view.
  Ran svg = report("rec.db", {"-f", "flamegraph"});
  ASSERT_EQ(svg.status, 0) << svg.err;
  EXPECT_NE(svg.out.find("Wall-clock flame graph (CPU + off-CPU in blue)"), std::string::npos);
  EXPECT_NE(svg.out.find("data-name=\"nap\" data-off="), std::string::npos);
  // chrome: off-CPU slices carry their category.
  Ran chrome = report("rec.db", {"-f", "chrome"});
  ASSERT_EQ(chrome.status, 0) << chrome.err;
  EXPECT_NE(chrome.out.find(R"("cat":"off-cpu")"), std::string::npos);
  EXPECT_NE(chrome.out.find(R"("view":"wall")"), std::string::npos);
  // A view the recording cannot show, and an unknown one.
  Ran plain = record("plain.db", {}, {kOffCpu, "0.2"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  Ran bad = report("plain.db", {"--view", "off-cpu"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("strobe: error: --view off-cpu needs off-CPU time, and this recording "
                         "has none (it was made without --off-cpu)\n  hint: record with: strobe "
                         "record --off-cpu ..., or use --view cpu"),
            std::string::npos)
      << bad.err;
  Ran unknown = report("rec.db", {"--view", "idle"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown --view 'idle'"), std::string::npos) << unknown.err;
}

TEST_F(OffCpuTest, OptionsThatCannotWorkAreRefused) {
  Ran none = record("rec.db", {"--off-cpu", "-g", "none"}, {kOffCpu, "0.1"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("--off-cpu needs call stacks"), std::string::npos) << none.err;
  Ran faults = record("rec.db", {"--off-cpu", "-e", "page-faults"}, {kOffCpu, "0.1"});
  EXPECT_EQ(faults.status, 2);
  EXPECT_NE(faults.err.find("--off-cpu needs a time event, not page-faults"), std::string::npos)
      << faults.err;
  Ran min = record("rec.db", {"--off-cpu-min", "1ms"}, {kOffCpu, "0.1"});
  EXPECT_EQ(min.status, 2);
  EXPECT_NE(min.err.find("--off-cpu-min applies to off-CPU recording only"), std::string::npos);
}

// An unprivileged user at perf_event_paranoid 2 may sample user space, not
// the context-switch event: the error says so and what to change.
TEST_F(OffCpuTest, UnprivilegedUsersAreToldWhatToChange) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run strobe as another user";
  const int paranoid = std::stoi(readFile("/proc/sys/kernel/perf_event_paranoid"));
  if (paranoid != 2) {
    GTEST_SKIP() << "perf_event_paranoid is " << paranoid << ": the case is paranoid 2";
  }
  std::filesystem::permissions(dir_, std::filesystem::perms::all);
  Ran r = runProcess({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                      kStrobe, "record", "--off-cpu", "-o", path("user.db"), "--", "/bin/true"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.err,
            "strobe: error: --off-cpu needs the context-switch event, which counts in the kernel, "
            "and kernel.perf_event_paranoid is 2, which forbids that for unprivileged users\n"
            "  hint: run: sudo sysctl kernel.perf_event_paranoid=1 (or grant CAP_PERFMON), or "
            "record without --off-cpu\n");
  // Without --off-cpu the same user records.
  Ran plain = runProcess({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                          kStrobe, "record", "-o", path("user.db"), "--", "/bin/true"});
  EXPECT_EQ(plain.status, 0) << plain.err;
}

// --off-cpu-min: shorter intervals are counted, and the header says so.
TEST_F(OffCpuTest, ShortIntervalsAreCountedInTheHeader) {
  Ran r = record("rec.db", {"--off-cpu", "--off-cpu-min", "15ms"}, {kOffCpu, "0.5"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = loadRecording(path("rec.db"));
  EXPECT_EQ(p.meta().off_cpu_min_ns, 15'000'000u);
  EXPECT_GT(p.meta().off_cpu_short_count, 10u);  // the 10 ms and 8 ms waits
  for (const model::Sample& s : p.samples()) {
    if (s.kind == model::SampleKind::kOffCpu) {
      EXPECT_GE(s.weight, 15'000'000u);
    }
  }
  Ran rep = report("rec.db", {});
  EXPECT_NE(rep.out.find(" intervals shorter than 15.0 ms not recorded ("), std::string::npos)
      << rep.out;
}

// With -p, -P and -a: the waits of a running program.
TEST_F(OffCpuTest, AttachedAndSystemWideRecordingsHaveOffCpuTime) {
  Background app({kOffCpu, "30"});
  sleepMs(300);
  const std::string pid = std::to_string(app.pid());
  struct Case {
    const char* db;
    std::vector<std::string> opts;
  };
  const Case cases[] = {
      {"p.db", {"--off-cpu", "-g", "auto", "-p", pid, "-d", "1s"}},
      {"name.db", {"--off-cpu", "-g", "auto", "-P", "fixture_offcpu", "-d", "1s"}},
      {"a.db", {"--off-cpu", "-g", "auto", "-a", "-d", "1s"}},
  };
  for (const Case& c : cases) {
    Ran r = record(c.db, c.opts, {});
    ASSERT_EQ(r.status, 0) << c.db << ": " << r.err;
    model::Profile p = loadRecording(path(c.db));
    model::Profile worker = select(p, model::View::kWall, "worker", app.pid());
    // About 1 s of the worker's life; nap is 20 of each ~48 ms.
    const double wall = static_cast<double>(model::timeSplit(worker.samples()).wallNs());
    EXPECT_GT(wall, 0.8e9) << c.db;
    EXPECT_LT(wall, 1.3e9) << c.db;
    // nap's share depends on how long burn takes on a busy machine; each
    // nap is a 20 ms sleep, whatever the load.
    EXPECT_GT(totalShare(worker, "nap"), 20.0) << c.db;
    EXPECT_LT(totalShare(worker, "nap"), 60.0) << c.db;
    OffCpuOf nap = offCpuOf(p, "nap");
    EXPECT_GT(static_cast<double>(nap.complete), 0.9 * static_cast<double>(nap.weight)) << c.db;
    std::vector<uint64_t> naps;
    for (const model::Sample& s : worker.samples()) {
      auto frames = stackFunctions(p, s.stack);
      if (s.kind == model::SampleKind::kOffCpu &&
          std::find(frames.begin(), frames.end(), "nap") != frames.end()) {
        naps.push_back(s.weight);
      }
    }
    ASSERT_GE(naps.size(), 5u) << c.db;
    std::sort(naps.begin(), naps.end());
    EXPECT_GE(naps[naps.size() / 2], 20'000'000u) << c.db;
    EXPECT_LT(naps[naps.size() / 2], 30'000'000u) << c.db;  // + the wake-up's wait for a CPU
  }
}

// `top --view wall`: threads that wait show up live, even one blocked
// since it started (main, in pthread_join: its interval is still open).
TEST_F(OffCpuTest, TopShowsWaitingThreadsLive) {
  Ran r = runProcess({kStrobe, "top", "--batch", "-n", "2", "--interval", "1s", "--view", "wall",
                      "--by", "thread", "-g", "auto", "--", kOffCpu, "30"});
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  // The last snapshot: header, headings, one row per thread.
  const size_t last = r.out.rfind("strobe top: ");
  ASSERT_NE(last, std::string::npos) << r.out;
  std::istringstream in(r.out.substr(last));
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("sampled wall "), std::string::npos) << header;
  EXPECT_NE(header.find(" + off-CPU "), std::string::npos) << header;
  std::map<std::string, double> share;
  for (std::string line; std::getline(in, line);) {
    double self = 0, total = 0;
    unsigned long long samples = 0;
    char name[64] = {};
    if (std::sscanf(line.c_str(), " %lf%% %lf%% %llu %63s", &self, &total, &samples, name) == 4) {
      share[name] += self;
    }
  }
  // Four threads alive all along: a quarter of the wall time each.
  for (const char* t : {"fixture_offcpu", "worker", "pipe-writer", "lock-holder"}) {
    EXPECT_NEAR(share[t], 25.0, 8.0) << t << "\n" << r.out;
  }
}

}  // namespace
}  // namespace strobe::test
