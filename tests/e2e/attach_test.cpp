// End to end: attaching to running processes (-p, -P, -d), thread churn,
// fork + exec, the whole system (-a), kernel frames (-k), events (-e, -c)
// and the exact wording of the errors. Shares are asserted within
// tolerances, never exact counts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"
#include "store/store.hpp"

namespace strobe::test {
namespace {

// Sets an environment variable for the processes this test starts.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

class AttachTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }
  std::string db() const { return dir_ + "/rec.db"; }

  Ran record(std::vector<std::string> opts) {
    std::vector<std::string> argv = {kStrobe, "record", "-o", db()};
    argv.insert(argv.end(), opts.begin(), opts.end());
    return runProcess(argv);
  }
  model::Profile load() { return loadRecording(db()); }
  std::string dir_;
};

// The innermost function of a sample's leaf frame ("" when unresolved).
std::string leafFunction(const model::Profile& p, const model::Sample& s) {
  if (s.stack == model::kNone) return {};
  const model::Location& loc = p.locations()[p.stacks()[s.stack].location];
  if (loc.lines.empty()) return {};
  return p.str(p.functions()[loc.lines.front().function].name);
}

std::string leafModule(const model::Profile& p, const model::Sample& s) {
  if (s.stack == model::kNone) return {};
  const model::Location& loc = p.locations()[p.stacks()[s.stack].location];
  return loc.module == model::kNone ? std::string() : p.str(p.modules()[loc.module].path);
}

// "strobe: debug: open descriptors: A at start, B at end" -> {A, B}.
std::pair<int, int> debugFds(const std::string& err) {
  const std::string key = "strobe: debug: open descriptors: ";
  size_t at = err.find(key);
  if (at == std::string::npos) return {-1, -2};
  int a = -1;
  int b = -2;
  std::sscanf(err.c_str() + at + key.size(), "%d at start, %d at end", &a, &b);
  return {a, b};
}

int readParanoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int v = 99;
  in >> v;
  return v;
}

class EightThreadsTest : public AttachTest, public ::testing::WithParamInterface<std::string> {};

// Both ways of covering threads started after the attach: inherited
// events, and per-thread events found by rescanning /proc/PID/task.
TEST_P(EightThreadsTest, StartedOverThreeSecondsAllAppearWithTheirShares) {
  ScopedEnv debug("STROBE_DEBUG", "1");
  ScopedEnv mode("STROBE_ATTACH_MODE", GetParam().c_str());
  // The threads stop working at 3.6 s, inside the 4 s recording: a
  // fixture still working while strobe writes (a second or more under ASan
  // on a slow machine) moves the true shares toward 1/8 (work_0 20.7% by
  // its clock against 25.7% recorded).
  Background fixture({kFixtures + "fixture_eight_threads", "3.6"});
  const int pid = fixture.pid();
  ASSERT_GT(pid, 0);
  sleepMs(100);  // the fixture idles 300 ms before its first thread
  Ran r = record({"-F", "999", "-d", "4s", "-p", std::to_string(pid)});
  Ran f = fixture.stop();
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(f.status, 0) << f.err;

  // The fixture's own account of each thread's CPU time: the true shares.
  std::map<std::string, double> cpu;
  double total_cpu = 0;
  std::istringstream lines(f.out);
  std::string name;
  double seconds = 0;
  while (lines >> name >> seconds) {
    cpu[name + "()"] = seconds;
    total_cpu += seconds;
  }
  ASSERT_EQ(cpu.size(), 8u) << f.out;
  model::Profile p = load();
  for (const auto& [fn, s] : cpu) {
    double truth = 100.0 * s / total_cpu;
    EXPECT_NEAR(selfShare(p, fn), truth, 3.0) << fn << "\n" << f.out;
    std::printf("%s: recorded %.1f%%, true %.1f%%\n", fn.c_str(), selfShare(p, fn), truth);
    EXPECT_GT(selfShare(p, fn), 0.5) << fn;
  }
  EXPECT_NEAR(static_cast<double>(p.meta().duration_ns) / 1e9, 4.0, 0.4);
  EXPECT_EQ(p.meta().pid, pid);
  EXPECT_EQ(p.meta().target, "pid " + std::to_string(pid));
  EXPECT_NE(r.err.find("strobe: recorded pid " + std::to_string(pid)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("strobe: debug: attach mode " + GetParam()), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, EightThreadsTest, ::testing::Values("inherit", "per-thread"));

// 600 threads x 2 CPUs would be over kInheritMaxFds events: one per thread.
TEST_F(AttachTest, ManyThreadsGetOneEventPerThread) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs to exceed 1,024";
  ScopedEnv debug("STROBE_DEBUG", "1");
  Background fixture({kFixtures + "fixture_many_threads", "600"});
  const int pid = fixture.pid();
  ASSERT_GT(pid, 0);
  // Wait until all threads exist.
  for (int i = 0; i < 100 && std::filesystem::exists("/proc/" + std::to_string(pid)); ++i) {
    if (threadCount(pid) >= 601) break;
    sleepMs(50);
  }
  Ran r = record({"-F", "999", "-d", "1s", "-p", std::to_string(pid)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strobe: debug: attach mode per-thread, 601 events opened"),
            std::string::npos)
      << r.err;
  auto [before, after] = debugFds(r.err);
  EXPECT_EQ(before, after) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "busy_main()"), 90.0);
  EXPECT_EQ(p.threads().size(), 601u);
}

TEST_F(AttachTest, CpuFilteredModeKeepsOnlyTheTarget) {
  ScopedEnv debug("STROBE_DEBUG", "1");
  ScopedEnv mode("STROBE_ATTACH_MODE", "cpu-filtered");
  Background fixture({kFixtures + "fixture_shares", "100000", "200"});
  const int pid = fixture.pid();
  ASSERT_GT(pid, 0);
  Ran r = record({"-F", "999", "-p", std::to_string(pid)});
  if (r.status == 3) GTEST_SKIP() << "per-CPU events on every task are not permitted: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strobe: debug: attach mode cpu-filtered"), std::string::npos) << r.err;
  auto [before, after] = debugFds(r.err);
  EXPECT_EQ(before, after) << r.err;
  model::Profile p = load();
  for (const auto& s : p.samples()) {
    const model::Thread* t = p.findThread(s.tid);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->pid, pid);
  }
  EXPECT_NEAR(selfShare(p, "work_six()"), 60.0, 5.0);
  EXPECT_NEAR(selfShare(p, "work_three()"), 30.0, 5.0);
  EXPECT_NEAR(selfShare(p, "work_one()"), 10.0, 5.0);
}

// Attached, the targets' own CPU while recording comes from /proc and is
// stated next to the sampled CPU.
TEST_F(AttachTest, TheTargetsOwnCpuIsNextToTheSampledCpu) {
  Background fixture({kFixtures + "fixture_until_signal"});
  ASSERT_GT(fixture.pid(), 0);
  sleepMs(100);
  Ran r = record({"-F", "999", "-d", "1s", "-p", std::to_string(fixture.pid())});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const double cpu = static_cast<double>(p.meta().target_cpu_ns);
  ASSERT_GT(cpu, 0.1e9) << "the fixture burns CPU while attached";
  // /proc counts in clock ticks (10 ms): allow for them.
  EXPECT_NEAR(static_cast<double>(model::totals(p).weight), cpu, 0.1 * cpu + 20e6);
  EXPECT_NE(r.err.find(" of the process's "), std::string::npos) << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("   CPU sampled: "), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find(" of the process's "), std::string::npos) << rep.out;
}

TEST_F(AttachTest, AttachEndsWhenTheTargetExitsAndNamesItsThreads) {
  Background fixture({kFixtures + "fixture_shares", "100000", "100"});
  ASSERT_GT(fixture.pid(), 0);
  Ran r = record({"-F", "4000", "-p", std::to_string(fixture.pid())});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "work_six()") + selfShare(p, "work_three()"), 50.0);
  // Thread names from /proc (or COMM records): the process's own name.
  const model::Thread* main = p.findThread(fixture.pid());
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->name, "fixture_shares");
}

class ChurnTest : public AttachTest, public ::testing::WithParamInterface<std::string> {};

// 2,000 threads living under a millisecond each, over 5 s.
TEST_P(ChurnTest, NoErrorNoLeakedDescriptorsAndShortLivedThreadsSampled) {
  const std::string how = GetParam();
  ScopedEnv debug("STROBE_DEBUG", "1");
  std::optional<ScopedEnv> mode;
  if (how == "per-thread") mode.emplace("STROBE_ATTACH_MODE", "per-thread");
  Ran r;
  int target = 0;
  if (how == "launch") {
    r = record({"-F", "4000", "--", kFixtures + "fixture_churn", "2000", "5"});
  } else {
    Background fixture({kFixtures + "fixture_churn", "2000", "5"});
    ASSERT_GT(fixture.pid(), 0);
    target = fixture.pid();
    r = record({"-F", "4000", "-p", std::to_string(fixture.pid())});
    EXPECT_EQ(fixture.wait().status, 0);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  // "strobe: error", not "error": the top-functions table may name
  // libc's __libc_dlerror_result_free.
  EXPECT_EQ(r.err.find("strobe: error"), std::string::npos) << r.err;
  // The warnings allowed: the CPU no sample covers, which is the last part
  // of a period of each of 2,000 short threads (about 0.12 ms each at
  // 0.25 ms periods: a sixth of their CPU), and may name the fixture's main
  // thread, which only creates and joins threads and so runs in the kernel;
  // and under ASan, where strobe drains the rings about three times slower,
  // up to 5% of the samples lost (1.5% seen once), said as warned.
  std::string err = r.err;
  for (size_t w = err.find("strobe: warning: "); w != std::string::npos;
       w = err.find("strobe: warning: ", w)) {
    // This warning: up to the next line of strobe's own.
    const size_t next = std::min(err.find("\nstrobe: ", w), err.size() - 1) + 1;
    const std::string_view warning = std::string_view(err).substr(w, next - w);
    bool allowed = warning.find("that the kernel counted has no sample") != std::string::npos &&
                   warning.find("short-lived threads\n") != std::string::npos;
#ifdef STROBE_TEST_UNDER_ASAN
    double lost = 100;
    allowed = allowed || (std::sscanf(err.c_str() + w,
                                      "strobe: warning: %lf%% of samples were lost", &lost) == 1 &&
                          lost <= 5.0);
#endif
    if (allowed) {
      err.erase(w, next - w);
    } else {
      w = next;
    }
  }
  EXPECT_EQ(err.find("strobe: warning"), std::string::npos) << r.err;
  auto [before, after] = debugFds(r.err);
  EXPECT_GT(before, 0) << r.err;
  EXPECT_EQ(before, after) << r.err;
  if (how != "launch") {
    EXPECT_NE(r.err.find("strobe: debug: attach mode " + how), std::string::npos) << r.err;
  }

  model::Profile p = load();
  std::set<int32_t> worker_tids;
  for (const auto& s : p.samples()) {
    if (leafFunction(p, s) == "churn_worker()") worker_tids.insert(s.tid);
  }
  worker_tids.erase(target);
  if (how != "per-thread") {
    // Inherited events follow every new thread from its first instruction,
    // but each thread's event counts its own period from zero and the
    // remainder is dropped at exit: a thread that runs less than one period
    // is never sampled. The workers run about 0.75 ms each here, so the test
    // samples at 4000 Hz (0.25 ms periods); at 999 Hz almost none are seen.
    EXPECT_GE(worker_tids.size(), 20u) << "threads with samples in churn_worker()";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ChurnTest, ::testing::Values("launch", "inherit", "per-thread"));

TEST_F(AttachTest, ForkedAndExecedChildIsAttributedToItsOwnProcess) {
  Ran r = record({"-F", "999", "--", kFixtures + "fixture_fork_exec", kFixtures + "fixture_shares",
                  "100000", "100"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const int32_t parent = p.meta().pid;
  std::set<int32_t> child_pids;
  uint64_t child_weight = 0;
  uint64_t parent_weight = 0;
  for (const auto& s : p.samples()) {
    const model::Thread* t = p.findThread(s.tid);
    ASSERT_NE(t, nullptr);
    std::string fn = leafFunction(p, s);
    if (fn == "work_six()" || fn == "work_three()" || fn == "work_one()") {
      EXPECT_NE(t->pid, parent);
      child_pids.insert(t->pid);
      EXPECT_EQ(std::filesystem::path(leafModule(p, s)).filename(), "fixture_shares");
      child_weight += s.weight;
    } else if (fn == "parent_work()") {
      EXPECT_EQ(t->pid, parent);
      EXPECT_EQ(std::filesystem::path(leafModule(p, s)).filename(), "fixture_fork_exec");
      parent_weight += s.weight;
    }
  }
  ASSERT_EQ(child_pids.size(), 1u);
  EXPECT_GT(child_weight, 0u);
  EXPECT_GT(parent_weight, 0u);
  const int32_t child = *child_pids.begin();
  const model::Thread* child_main = p.findThread(child);
  ASSERT_NE(child_main, nullptr);
  EXPECT_EQ(child_main->name, "fixture_shares");

  Ran rep = runProcess({kStrobe, "report", db(), "--by", "process"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("fixture_shares (" + std::to_string(child) + ")"), std::string::npos)
      << rep.out;
  EXPECT_NE(rep.out.find("fixture_fork_ex (" + std::to_string(parent) + ")"), std::string::npos)
      << rep.out;

  // --no-inherit: only the command's first thread, not its child.
  Ran ni = record({"-F", "999", "--no-inherit", "--", kFixtures + "fixture_fork_exec",
                   kFixtures + "fixture_shares", "100000", "100"});
  ASSERT_EQ(ni.status, 0) << ni.err;
  model::Profile q = load();
  EXPECT_GT(selfShare(q, "parent_work()"), 90.0);
  EXPECT_EQ(selfShare(q, "work_six()"), 0.0);
}

// A process that rewrote its title (setproctitle leaves the old argument
// area padded with NULs): the header shows what ps shows.
TEST_F(AttachTest, ARetitledProcessIsNamedAsPsNamesIt) {
  Background fixture({kFixtures + "fixture_retitle", std::string(40, 'x'), std::string(40, 'y')});
  ASSERT_GT(fixture.pid(), 0);
  sleepMs(200);
  const std::string pid = std::to_string(fixture.pid());
  Ran ps = runProcess({"/usr/bin/ps", "-o", "args=", "-p", pid});
  ASSERT_EQ(ps.status, 0) << ps.err;
  std::string shown = ps.out.substr(0, ps.out.find_last_not_of(" \n") + 1);
  ASSERT_EQ(shown, "retitled-server *:6399") << "the fixture did not rewrite its title";
  Ran r = record({"-p", pid, "-d", "300ms"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strobe: recorded pid " + pid + " (" + shown + ") ("), std::string::npos)
      << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("\ncommand:   pid " + pid + " (" + shown + ")\n"), std::string::npos)
      << rep.out;
  EXPECT_EQ(load().meta().command, std::vector<std::string>{shown});
}

TEST_F(AttachTest, SystemWideListsABusyProcessAmongTheTop) {
  Background fixture({kFixtures + "fixture_until_signal"});
  ASSERT_GT(fixture.pid(), 0);
  sleepMs(100);
  Ran r = record({"-a", "-d", "1s"});
  if (r.status == 3) GTEST_SKIP() << "the kernel forbids system-wide profiling here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  // Other processes may be busy too (a shared machine): the top ten.
  Ran rep = runProcess({kStrobe, "report", db(), "--by", "process", "--top", "10"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("fixture_until_s (" + std::to_string(fixture.pid()) + ")"),
            std::string::npos)
      << rep.out;
  model::Profile p = load();
  EXPECT_EQ(p.meta().target, "system");
  EXPECT_NEAR(static_cast<double>(p.meta().duration_ns) / 1e9, 1.0, 0.1);
  EXPECT_GT(selfShare(p, "spin_until_signal()"), 0.0);
  // What was recorded is named wherever a recording is listed or shown.
  Ran text = runProcess({kStrobe, "report", db(), "--top", "1"});
  EXPECT_NE(text.out.find("\ncommand:   the whole system\n"), std::string::npos) << text.out;
  Ran list = runProcess({kStrobe, "list", dir_});
  EXPECT_NE(list.out.find("  the whole system\n"), std::string::npos) << list.out;
}

TEST_F(AttachTest, KernelFramesAreKeptAndNamed) {
  Ran r = record({"-k", "-F", "999", "--", kFixtures + "fixture_syscalls", "1.0"});
  if (r.status == 3) GTEST_SKIP() << "the kernel forbids kernel sampling here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  uint64_t kernel_leaf = 0;
  uint64_t named = 0;
  std::set<std::string> names;
  for (const auto& s : p.samples()) {
    if (leafModule(p, s) != "[kernel.kallsyms]") continue;
    kernel_leaf += s.weight;
    const model::Location& loc = p.locations()[p.stacks()[s.stack].location];
    EXPECT_EQ(loc.offset, loc.address);
    std::string fn = leafFunction(p, s);
    if (!fn.empty() && fn != "[kernel]") {
      named += s.weight;
      names.insert(fn);
    }
  }
  const uint64_t total = model::totals(p).weight;
  EXPECT_GT(static_cast<double>(kernel_leaf), 0.3 * static_cast<double>(total));
  EXPECT_GT(static_cast<double>(named), 0.95 * static_cast<double>(kernel_leaf));
  EXPECT_GE(names.size(), 3u);
  // Kernel stacks continue into the user part down to main(). (libc's
  // syscall wrappers keep no frame pointer, so the frame-pointer walk skips
  // their caller, syscall_loop.)
  auto rows = model::topTable(p, model::GroupBy::kFunction);
  auto it = std::find_if(rows.begin(), rows.end(),
                         [](const model::TopRow& r) { return r.function == "main"; });
  ASSERT_NE(it, rows.end());
  EXPECT_GT(static_cast<double>(it->total), 0.9 * static_cast<double>(total));
}

// -k with -g dwarf: the kernel part of the callchain stays in front of the
// DWARF-unwound user stack, which (unlike frame pointers) goes through
// libc's syscall wrappers to their caller.
TEST_F(AttachTest, KernelFramesComeBeforeDwarfUnwoundUserFrames) {
  Ran r = record({"-k", "-g", "dwarf", "-F", "999", "--", kFixtures + "fixture_syscalls", "1.0"});
  if (r.status == 3) GTEST_SKIP() << "the kernel forbids kernel sampling here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const double total = static_cast<double>(model::totals(p).weight);
  uint64_t kernel_leaf = 0;
  for (const auto& s : p.samples()) {
    if (leafModule(p, s) == "[kernel.kallsyms]") kernel_leaf += s.weight;
  }
  EXPECT_GT(static_cast<double>(kernel_leaf), 0.3 * total);
  auto rows = model::topTable(p, model::GroupBy::kFunction);
  auto share = [&](const std::string& fn) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const model::TopRow& row) { return row.function == fn; });
    return it == rows.end() ? 0.0 : static_cast<double>(it->total) / total;
  };
  EXPECT_GT(share("syscall_loop(double)"), 0.9);
  EXPECT_GT(share("main"), 0.9);
}

TEST_F(AttachTest, CountingEventIsNamedWithItsUnit) {
  Ran r = record({"-e", "page-faults", "-c", "1", "--", kFixtures + "fixture_shares", "1000", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_EQ(p.meta().event, "page-faults");
  EXPECT_EQ(p.meta().sample_period, 1u);
  EXPECT_EQ(p.meta().frequency, 0u);
  const auto t = model::totals(p);
  EXPECT_GT(t.samples, 10u);
  EXPECT_EQ(t.weight, t.samples);  // one fault per sample
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("event: page-faults every 1 faults   weight: " + std::to_string(t.weight) +
                         " faults"),
            std::string::npos)
      << rep.out;
  // Faults are counted, never shown as CPU time (#16, "Units follow the event").
  EXPECT_NE(rep.out.find("   page-faults: " + std::to_string(t.weight) + " faults   threads: "),
            std::string::npos)
      << rep.out;
  EXPECT_EQ(rep.out.find("CPU sampled"), std::string::npos) << rep.out;
}

TEST_F(AttachTest, ErrorsWordForWord) {
  Ran r = record({"-p", "2147483647"});
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err,
            "strobe: error: no process with pid 2147483647\n"
            "  hint: check the pid; the process may have exited\n");

  r = record({"-P", "strobe-no-such-process"});
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err,
            "strobe: error: no process named 'strobe-no-such-process'\n"
            "  hint: check the name with ps, or give the pid with -p PID\n");

  // Two copies of a fixture under a name no other process has.
  std::string twin = dir_ + "/i5twin" + std::to_string(::getpid() % 100000);
  std::filesystem::copy_file(kFixtures + "fixture_until_signal", twin);
  Background a({twin});
  Background b({twin});
  sleepMs(100);
  std::string name = std::filesystem::path(twin).filename();
  r = record({"-P", name});
  EXPECT_EQ(r.status, 5);
  int lo = std::min(a.pid(), b.pid());
  int hi = std::max(a.pid(), b.pid());
  EXPECT_EQ(r.err, "strobe: error: 2 processes match '" + name + "':\n  " + std::to_string(lo) +
                       " " + twin + "\n  " + std::to_string(hi) + " " + twin +
                       "\n  hint: choose one with -p PID, or all of them with -p " +
                       std::to_string(lo) + "," + std::to_string(hi) + "\n");

  r = record({"-e", "cycles", "--", "/bin/true"});
  if (r.status == 0) GTEST_SKIP() << "this machine has hardware counters (a PMU)";
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.err,
            "strobe: error: event 'cycles' is not available: no PMU here (a VM without hardware "
            "counters?)\n  hint: use -e cpu-clock\n");
}

TEST_F(AttachTest, UsageErrors) {
  Ran r = record({"-d", "5x", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: malformed duration '5x'\n"
            "  hint: use e.g. 30s, 1h30m, 250ms, 100us or plain seconds (2.5)\n");
  r = record({"-p", "12,x"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: malformed pid list '12,x'\n"
            "  hint: give process ids separated by commas: -p 1234 or -p 1234,5678\n");
  r = record({"-a", "-p", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: give only one of: a command, -p PID, -P NAME, -a\n"
            "  hint: usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a\n");
  r = record({"-e", "bogus", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: unknown event 'bogus'\n"
            "  hint: known events: cpu-clock, task-clock, page-faults, context-switches, cycles, "
            "instructions, cache-misses, branch-misses\n");
  r = record({"-F", "99", "-c", "1000", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: -F and -c both set the sampling rate\n"
            "  hint: give one: -F HZ or -c N (every N events)\n");
}

TEST_F(AttachTest, DurationStopsALaunchedCommand) {
  Ran r = record({"-d", "500ms", "--", kFixtures + "fixture_until_signal"});
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  model::Profile p = load();
  EXPECT_NEAR(static_cast<double>(p.meta().duration_ns) / 1e9, 0.5, 0.1);
}

TEST_F(AttachTest, SigtermEndsAnAttachAndTheRecordingIsWritten) {
  Background fixture({kFixtures + "fixture_until_signal"});
  std::vector<std::string> argv = {kStrobe, "record", "-o",
                                   db(),    "-p",     std::to_string(fixture.pid())};
  int pid = startProcess(argv, dir_);
  ASSERT_GT(pid, 0);
  sleepMs(700);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  Ran r = waitProcess(pid, dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "spin_until_signal()"), 80.0);
}

// Denials for an unprivileged user, as perf_event_paranoid has it on this
// machine: strobe runs as `nobody` through setpriv.
class DenialTest : public AttachTest {
 protected:
  Ran asNobody(std::vector<std::string> opts) {
    std::vector<std::string> argv = {"/usr/bin/setpriv",
                                     "--reuid=nobody",
                                     "--regid=nogroup",
                                     "--clear-groups",
                                     kStrobe,
                                     "record",
                                     "-o",
                                     "/tmp/strobe-nobody-never-written.db"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    return runProcess(argv);
  }
  void SetUp() override {
    AttachTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "switching to nobody with setpriv needs root";
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/setpriv";
    paranoid_ = readParanoid();
  }
  int paranoid_ = 0;
};

TEST_F(DenialTest, AnotherUsersProcess) {
  Background fixture({kFixtures + "fixture_until_signal"});
  const std::string pid = std::to_string(fixture.pid());
  Ran r = asNobody({"-p", pid, "-d", "1s"});
  if (paranoid_ < 0) GTEST_SKIP() << "perf_event_paranoid " << paranoid_ << " allows everything";
  EXPECT_EQ(r.status, 3);
  std::string p = std::to_string(paranoid_);
  if (paranoid_ >= 3) {
    EXPECT_EQ(r.err, "strobe: error: perf_event_open refused: kernel.perf_event_paranoid is " + p +
                         ", which forbids profiling for unprivileged users\n"
                         "  hint: run: sudo sysctl kernel.perf_event_paranoid=2 (or grant "
                         "CAP_PERFMON)\n");
  } else {
    EXPECT_EQ(r.err, "strobe: error: perf_event_open refused for pid " + pid +
                         ": no permission to profile it (another user's process?)\n"
                         "  hint: run strobe as that process's user, or grant CAP_SYS_PTRACE "
                         "(e.g. sudo)\n");
  }
}

TEST_F(DenialTest, SystemWide) {
  Ran r = asNobody({"-a", "-d", "100ms"});
  if (paranoid_ < 1) GTEST_SKIP() << "perf_event_paranoid " << paranoid_ << " allows -a";
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "strobe: error: perf_event_open refused: kernel.perf_event_paranoid is " +
                       std::to_string(paranoid_) +
                       ", which forbids CPU-wide profiling for unprivileged users\n"
                       "  hint: run: sudo sysctl kernel.perf_event_paranoid=0 (or grant "
                       "CAP_PERFMON)\n");
}

TEST_F(DenialTest, KernelFrames) {
  Ran r = asNobody({"-k", "--", "/bin/true"});
  if (paranoid_ < 2) GTEST_SKIP() << "perf_event_paranoid " << paranoid_ << " allows -k";
  EXPECT_EQ(r.status, 3);
  std::string p = std::to_string(paranoid_);
  if (paranoid_ >= 3) {
    EXPECT_EQ(r.err, "strobe: error: perf_event_open refused: kernel.perf_event_paranoid is " + p +
                         ", which forbids profiling for unprivileged users\n"
                         "  hint: run: sudo sysctl kernel.perf_event_paranoid=1 (or grant "
                         "CAP_PERFMON)\n");
  } else {
    EXPECT_EQ(r.err, "strobe: error: perf_event_open refused: kernel.perf_event_paranoid is " + p +
                         ", which forbids kernel sampling for unprivileged users\n"
                         "  hint: run: sudo sysctl kernel.perf_event_paranoid=1 (or grant "
                         "CAP_PERFMON), or drop -k/--kernel\n");
  }
}

}  // namespace
}  // namespace strobe::test
