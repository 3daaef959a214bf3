// End to end: `strobe record -- FIXTURE` then the recording and `strobe
// report`. Shares are asserted within tolerances, never exact counts.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"
#include "store/store.hpp"

namespace strobe::test {
namespace {

const std::string kFixtureSources = STROBE_SOURCE_DIR "/tests/fixtures/";

class RecordTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }

  std::string db() const { return dir_ + "/rec.db"; }

  Ran record(std::vector<std::string> cmd, std::vector<std::string> opts = {"-F", "999"}) {
    std::vector<std::string> argv = {kStrobe, "record", "-o", db()};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return runProcess(argv);
  }

  model::Profile load() { return loadRecording(db()); }

  std::string dir_;
};

// Percent of weight in the two busiest threads.
double workerThreadShare(const model::Profile& p) {
  std::map<int32_t, uint64_t> per_tid;
  for (const auto& s : p.samples()) per_tid[s.tid] += s.weight;
  std::vector<uint64_t> w;
  for (const auto& [tid, v] : per_tid) w.push_back(v);
  std::sort(w.rbegin(), w.rend());
  if (w.size() < 2) return 0.0;
  return 100.0 * static_cast<double>(w[0] + w[1]) / static_cast<double>(model::totals(p).weight);
}

// Percent of weight whose stack has at least two frames.
double deepShare(const model::Profile& p) {
  uint64_t deep = 0;
  for (const auto& s : p.samples()) {
    int n = 0;
    p.forEachFrame(s.stack, [&](model::LocationId) { ++n; });
    if (n >= 2) deep += s.weight;
  }
  return 100.0 * static_cast<double>(deep) / static_cast<double>(model::totals(p).weight);
}

// Whether this process may sample the kernel: root, or
// kernel.perf_event_paranoid <= 1 (CAP_PERFMON is not checked).
bool kernelSamplingAllowed() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 3;
  in >> paranoid;
  return ::geteuid() == 0 || paranoid <= 1;
}

int paranoidLevel() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 3;
  in >> paranoid;
  return paranoid;
}

const model::TopRow* findRow(const std::vector<model::TopRow>& rows, const std::string& name) {
  for (const auto& r : rows) {
    if (r.function == name) return &r;
  }
  return nullptr;
}

TEST_F(RecordTest, SharesOfSixThreeOneOnTwoThreads) {
  Ran r = record({kFixtures + "fixture_shares"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_NEAR(selfShare(p, "work_six()"), 60.0, 3.0);
  EXPECT_NEAR(selfShare(p, "work_three()"), 30.0, 3.0);
  EXPECT_NEAR(selfShare(p, "work_one()"), 10.0, 3.0);
  // Two workers burn the CPU; the main thread may catch a few samples at start.
  EXPECT_GE(model::totals(p).threads, 2u);
  EXPECT_GT(workerThreadShare(p), 99.0);

  // Call stacks come with the samples. (gcc 12 leaves leaf functions without
  // a frame even with -mno-omit-leaf-frame-pointer, so a frame-pointer walk
  // misses the leaf's direct caller; the stacks still reach the thread's
  // entry in libstdc++.)
  EXPECT_GT(deepShare(p), 95.0);
}

TEST_F(RecordTest, SampleCountMatchesCpuTimeAtTheRequestedRate) {
  // The recorder at nice -10 and the fixture it starts back at nice 0: on
  // a 2-core machine the fixture's two busy threads fill both CPUs, and the
  // recorder must still drain its rings (clean run 21: the ASan-built
  // strobe at their priority lost 10 of 3,310 samples on a slow VM). Not
  // the fixture at nice 19: beside another test's busy threads it gets
  // ~1.5% of a CPU and its 3 s of work takes minutes. Without root the
  // recorder stays at nice 0 (nice says so) and the fixture goes to 10.
  std::vector<std::string> argv = atNice(-10, {kStrobe, "record", "-o", db(), "-F", "999", "--"});
  for (std::string& a : atNice(10, {kFixtures + "fixture_shares"})) argv.push_back(std::move(a));
  Ran r = runProcess(argv);
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const double cpu_s = static_cast<double>(p.meta().target_cpu_ns) / 1e9;
  ASSERT_GT(cpu_s, 2.0) << "the fixture must burn at least 2 s of CPU";
  const auto t = model::totals(p);
  EXPECT_GE(static_cast<double>(t.samples), 0.95 * cpu_s * 999) << "cpu " << cpu_s << " s";
  // Weights are the sampling periods: together they are the CPU time.
  EXPECT_NEAR(static_cast<double>(t.weight) / 1e9, cpu_s, 0.05 * cpu_s);
  // Nothing lost at 999 Hz. Under ASan strobe drains its rings about three
  // times slower, and lost 2 and 3 of ~3,300 samples in two clean runs of
  // make test: a loss of at most 0.2% is allowed there, and must be said.
#ifdef STROBE_TEST_UNDER_ASAN
  const uint64_t lost = p.meta().lost_samples;
  EXPECT_LE(lost * 500, t.samples) << lost << " lost of " << t.samples;
  EXPECT_NE(r.err.find("samples per CPU-second, " + std::to_string(lost) + " lost"),
            std::string::npos)
      << r.err;
#else
  EXPECT_EQ(p.meta().lost_samples, 0u);
  EXPECT_NE(r.err.find("samples per CPU-second, 0 lost"), std::string::npos) << r.err;
#endif
}

TEST_F(RecordTest, ReportByLineNamesTheLoopLines) {
  Ran r = record({kFixtures + "fixture_shares"});
  ASSERT_EQ(r.status, 0) << r.err;
  Ran rep = runProcess({kStrobe, "report", db(), "--by", "line"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  for (const char* marker : {"work_six's loop", "work_three's loop", "work_one's loop"}) {
    int line = lineOf(kFixtureSources + "shares.cpp", marker);
    ASSERT_GT(line, 0);
    std::string loc = "shares.cpp:" + std::to_string(line);
    EXPECT_NE(rep.out.find(loc), std::string::npos) << "missing " << loc << " in\n" << rep.out;
  }
}

TEST_F(RecordTest, ThreadsStartedLateAreCovered) {
  Ran r = record({kFixtures + "fixture_late_threads"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GE(p.meta().duration_ns, 500'000'000u);
  EXPECT_GT(selfShare(p, "late_worker(unsigned long)"), 90.0);
  const double cpu_s = static_cast<double>(p.meta().target_cpu_ns) / 1e9;
  EXPECT_GE(static_cast<double>(model::totals(p).samples), 0.95 * cpu_s * 999);
  EXPECT_GT(workerThreadShare(p), 99.0);
}

TEST_F(RecordTest, DlopenedLibraryIsSymbolizedWithItsLines) {
  Ran r = record({kFixtures + "fixture_dlopen", kFixtures + "libfixture_burn.so"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "burn_in_library"), 90.0);
  auto rows = model::topTable(p, model::GroupBy::kLine);
  const model::TopRow* row = findRow(rows, "burn_in_library");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(std::filesystem::path(row->file).filename(), "libburn.cpp");
  EXPECT_EQ(row->line,
            static_cast<uint32_t>(lineOf(kFixtureSources + "libburn.cpp", "the library's loop")));
  EXPECT_EQ(row->module, "libfixture_burn.so");
}

TEST_F(RecordTest, ThreadsTooShortToSampleAreAccountedFor) {
  // 1000 threads of about a millisecond of CPU each, at 99 Hz (one sample
  // per 10.1 ms of a thread's CPU): nearly none is ever sampled. Their CPU
  // still shows: the events count it, and no sample covers it.
  Ran r = record({kFixtures + "fixture_churn", "1000", "2"}, {});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const model::Meta& m = p.meta();
  EXPECT_GT(m.unsampled_threads, 900u);
  ASSERT_GT(m.target_cpu_ns, 0u);
  // Sampled plus unsampled CPU is the command's own CPU time (rusage).
  const double seen = static_cast<double>(model::totals(p).weight + m.unsampled_count);
  EXPECT_NEAR(seen / static_cast<double>(m.target_cpu_ns), 1.0, 0.15)
      << "sampled " << model::totals(p).weight << " ns, unsampled " << m.unsampled_count
      << " ns, rusage " << m.target_cpu_ns << " ns";
  const std::string head = std::to_string(m.unsampled_threads) +
                           " threads exited without a sample: each ran less than one sampling "
                           "period (10.1 ms at 99 Hz); ";
  const std::string tail =
      " of CPU that the kernel counted has no sample in all (theirs, and the last part of a "
      "period of every other thread)";
  // head, then the duration, then tail: on one line.
  auto hasLine = [&](const std::string& text, const std::string& start, const std::string& end) {
    const size_t a = text.find(start + head);
    const size_t b = a == std::string::npos ? a : text.find(tail + end, a);
    return b != std::string::npos && text.find('\n', a + start.size()) > b;
  };
  EXPECT_TRUE(hasLine(r.err, "strobe: warning: ",
                      "\n  hint: raise -F (e.g. -F 999) to sample short-lived threads\n"))
      << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_TRUE(hasLine(rep.out, "\nunsampled: ", "\n")) << rep.out;
}

// Kernel time counts (acceptance: `record -- dd if=/dev/zero of=/dev/null
// bs=512`, here a fixture doing the same small reads and writes): the
// sampled CPU is the command's own user+system time (its rusage), and one
// [kernel] frame on top of the user stack that entered the kernel holds the
// system part.
TEST_F(RecordTest, KernelTimeIsSampledOnTheUserStackThatEnteredIt) {
  if (!kernelSamplingAllowed()) {
    GTEST_SKIP() << "kernel sampling needs root or perf_event_paranoid <= 1 (it is "
                 << paranoidLevel() << ")";
  }
  // -g auto: libc's system call wrappers keep no frame pointer, so -g fp
  // would skip their callers ([missing caller]).
  Ran r = record({kFixtures + "fixture_syscalls", "1.0"}, {"-F", "999", "-g", "auto"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const model::Meta& m = p.meta();
  const double cpu = static_cast<double>(m.target_cpu_ns);
  const double sys = static_cast<double>(m.target_system_ns);
  ASSERT_GT(cpu, 0.1e9);
  ASSERT_GT(sys, 0.5 * cpu) << "the fixture must spend most of its time in system calls";
  EXPECT_EQ(m.kernel_time, 1u);
  EXPECT_EQ(m.kernel_refused, "");
  const double weight = static_cast<double>(model::totals(p).weight);
  EXPECT_NEAR(weight, cpu, 0.1 * cpu) << "sampled " << weight << " ns, rusage " << cpu << " ns";
  // [kernel] is the system part, within 10% of the command's CPU.
  uint64_t kernel = 0;
  uint64_t kernel_under_loop = 0;
  for (const model::Sample& s : p.samples()) {
    std::vector<std::string> names;
    p.forEachFrame(s.stack, [&](model::LocationId l) {
      const model::Location& loc = p.locations()[l];
      names.push_back(loc.lines.empty() ? ""
                                        : p.str(p.functions()[loc.lines.back().function].name));
    });
    if (names.empty() || names.front() != "[kernel]") continue;
    kernel += s.weight;
    if (std::find(names.begin(), names.end(), "syscall_loop(double)") != names.end()) {
      kernel_under_loop += s.weight;
    }
  }
  EXPECT_NEAR(static_cast<double>(kernel), sys, 0.1 * cpu)
      << "[kernel] " << kernel << " ns, rusage system " << sys << " ns";
  // ... on the user stack that made the system calls.
  EXPECT_GT(static_cast<double>(kernel_under_loop), 0.95 * static_cast<double>(kernel));
  EXPECT_NEAR(selfShare(p, "[kernel]"), 100.0 * sys / cpu, 10.0);
  // Sampled CPU next to the command's own, in the summary and the report.
  EXPECT_NE(r.err.find(" of the command's "), std::string::npos) << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("   CPU sampled: "), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find(" of the command's "), std::string::npos) << rep.out;
  EXPECT_EQ(rep.out.find("\nkernel:"), std::string::npos) << rep.out;
}

// Where the kernel refuses kernel sampling (an unprivileged user under
// perf_event_paranoid 2), the report says how much of the command's CPU was
// in the kernel and not sampled, and what would allow it.
TEST_F(RecordTest, WithoutKernelSamplingTheMissingKernelTimeIsStated) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching to nobody with setpriv needs root";
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/setpriv";
  const int paranoid = paranoidLevel();
  if (paranoid != 2) {
    GTEST_SKIP() << "perf_event_paranoid is " << paranoid
                 << ": user-space profiling without kernel sampling needs 2";
  }
  namespace fs = std::filesystem;
  fs::permissions(dir_, fs::perms::all);
  Ran r = runProcess({"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                      kStrobe, "record", "-F", "999", "-o", db(), "--",
                      kFixtures + "fixture_syscalls", "1.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const model::Meta& m = p.meta();
  EXPECT_EQ(m.kernel_time, 0u);
  const std::string reason =
      "kernel.perf_event_paranoid is 2, which forbids kernel sampling for unprivileged users";
  EXPECT_EQ(m.kernel_refused, reason);
  ASSERT_GT(m.target_system_ns, m.target_cpu_ns / 2);
  // What was sampled is the user part of the command's CPU (rusage splits
  // user and system time by clock ticks: allow a few).
  const double user = static_cast<double>(m.target_cpu_ns - m.target_system_ns);
  EXPECT_NEAR(static_cast<double>(model::totals(p).weight), user,
              0.1 * static_cast<double>(m.target_cpu_ns) + 15e6);
  const std::regex warning(
      "strobe: warning: user time only: [0-9.]+ m?s of the command's [0-9.]+ m?s CPU was in the "
      "kernel and not sampled \\(" +
      reason +
      "\\)\n  hint: sudo sysctl kernel.perf_event_paranoid=1, or run as root or with "
      "CAP_PERFMON\n");
  EXPECT_TRUE(std::regex_search(r.err, warning)) << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("\nkernel:    user time only: "), std::string::npos) << rep.out;
}

// A command that exits at once: the summary says so, with its status and
// how long it ran, instead of a bare "0 samples".
TEST_F(RecordTest, ACommandThatFailsAtOnceIsReported) {
  Ran r = record({"/bin/sh", "-c", "exit 2"}, {});
  EXPECT_EQ(r.status, 2);
  const std::regex said(
      "\nstrobe: no sample was taken: the command exited with status 2 after [0-9.]+ (us|ms), "
      "less than one sampling period \\(10\\.1 ms of CPU at 99 Hz\\)\n");
  EXPECT_TRUE(std::regex_search(r.err, said)) << r.err;
  EXPECT_NE(r.err.find(", 0 threads, 0 samples, "), std::string::npos) << r.err;
  // One thread is "1 thread".
  r = record({kFixtures + "fixture_syscalls", "0.3"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(", 1 thread, "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no sample was taken"), std::string::npos) << r.err;
}

// `record -- make`: the command's children are followed after the command
// itself exited, until they end too; their CPU is the command's.
TEST_F(RecordTest, ChildrenAreFollowedAfterTheCommandExits) {
  Ran r = record({kFixtures + "fixture_orphan", "1.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "orphan_work(double)"), 90.0);
  const double cpu = static_cast<double>(p.meta().target_cpu_ns);
  EXPECT_GT(cpu, 0.95e9) << "the child's CPU is counted";
  EXPECT_NEAR(static_cast<double>(model::totals(p).weight), cpu, 0.1 * cpu);
  EXPECT_GE(p.meta().duration_ns, 900'000'000u);
}

// Stopping strobe while it follows them: the children still running are
// left alone and counted.
TEST_F(RecordTest, ChildrenStillRunningWhenStoppedAreCounted) {
  int pid =
      startProcess({kStrobe, "record", "-o", db(), "--", kFixtures + "fixture_orphan", "30"}, dir_);
  ASSERT_GT(pid, 0);
  sleepMs(800);
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  Ran r = waitProcess(pid, dir_);
  model::Profile p = load();
  // The orphan goes on: end it.
  for (const model::Thread& t : p.threads()) {
    if (t.pid != p.meta().pid) ::kill(t.pid, SIGKILL);
  }
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strobe: warning: 1 process the command started was still running when "
                       "the recording stopped: not sampled after that\n"),
            std::string::npos)
      << r.err;
  EXPECT_GT(selfShare(p, "orphan_work(double)"), 80.0);
}

// -d is a hard limit: a command that ignores SIGTERM is killed after the
// grace period, and the summary says so.
TEST_F(RecordTest, DurationIsAHardLimit) {
  Ran r = record({kFixtures + "fixture_until_signal", "ignore-term"}, {"-d", "300ms"});
  EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
  EXPECT_NE(r.err.find("strobe: warning: the command did not exit within 2 s of the SIGTERM that "
                       "ended -d: strobe killed it (SIGKILL)\n"),
            std::string::npos)
      << r.err;
  model::Profile p = load();
  // 300 ms, the 2 s grace period, and some slack (the fixture would go on for 30 s).
  EXPECT_LT(p.meta().duration_ns, 10'000'000'000u);
  EXPECT_GT(selfShare(p, "spin_until_signal()"), 80.0);
}

TEST_F(RecordTest, RecordingIsSelfContained) {
  std::string copy = dir_ + "/shares_copy";
  std::filesystem::copy_file(kFixtures + "fixture_shares", copy);
  Ran r = record({copy, "100000", "100"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::filesystem::remove(copy);
  Ran rep = runProcess({kStrobe, "report", db()});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("work_six()"), std::string::npos) << rep.out;
}

TEST_F(RecordTest, ExitStatusIsTheCommands) {
  EXPECT_EQ(record({"/bin/sh", "-c", "exit 7"}).status, 7);
  EXPECT_EQ(record({"/bin/sh", "-c", "kill -SEGV $$"}).status, 128 + SIGSEGV);
}

TEST_F(RecordTest, CommandNotFound) {
  Ran r = record({"no-such-command-strobe-test"});
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err,
            "strobe: error: command not found: no-such-command-strobe-test\n"
            "  hint: check the name, or give its path\n");
  EXPECT_FALSE(std::filesystem::exists(db()));
}

TEST_F(RecordTest, UsageErrors) {
  Ran r = record({"/bin/true"}, {"-F", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strobe: error: -F 0 is out of range\n  hint: give a rate from 1 to 10000 Hz\n");
  r = record({"/bin/true"}, {"--mmap-pages", "100"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: --mmap-pages 100 is not a power of two\n"
            "  hint: use 64, 128, 256, 512, ...\n");
  r = record({"/bin/true"}, {"-g", "lbr"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: unknown call graph mode 'lbr'\n"
            "  hint: use -g fp, -g dwarf[,BYTES], -g auto or -g none\n");
}

TEST_F(RecordTest, HighRateWarnsAboutOverhead) {
  Ran r = record({"/bin/true"}, {"-F", "6000"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("strobe: warning: -F 6000 samples very often"), std::string::npos) << r.err;
}

TEST_F(RecordTest, ExistingRecordingIsKeptAsOld) {
  ASSERT_EQ(record({"/bin/true"}).status, 0);
  ASSERT_EQ(record({"/bin/true"}).status, 0);
  EXPECT_TRUE(std::filesystem::exists(db()));
  EXPECT_TRUE(std::filesystem::exists(db() + ".old"));
}

TEST_F(RecordTest, SignalSentToStrobeIsForwardedAndRecordingWritten) {
  std::vector<std::string> argv = {kStrobe, "record", "-o",
                                   db(),    "--",     kFixtures + "fixture_until_signal"};
  int pid = startProcess(argv, dir_);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ASSERT_EQ(kill(pid, SIGINT), 0);
  Ran r = waitProcess(pid, dir_);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
  model::Profile p = load();
  EXPECT_GT(selfShare(p, "spin_until_signal()"), 80.0);
  EXPECT_EQ(p.meta().exit_status, 128 + SIGINT);
}

TEST_F(RecordTest, LostSamplesAreCountedAndWarnedAbout) {
  // Stop strobe (not the command) long enough for a one-page ring to overflow.
  std::vector<std::string> argv = {kStrobe, "record", "-F",           "4000",
                                   "-g",    "fp",     "--mmap-pages", "1",
                                   "-o",    db(),     "--",           kFixtures + "fixture_shares"};
  int pid = startProcess(argv, dir_);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_EQ(kill(pid, SIGCONT), 0);
  Ran r = waitProcess(pid, dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_GT(p.meta().lost_samples, 0u);
  EXPECT_NE(
      r.err.find("% of samples were lost: strobe did not drain the ring in time\n"
                 "  hint: lower the rate (-F) or enlarge the ring (--mmap-pages, e.g. 512)\n"),
      std::string::npos)
      << r.err;
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find(" (" + std::to_string(p.meta().lost_samples) + " lost)"),
            std::string::npos)
      << rep.out;
}

TEST_F(RecordTest, ReportOnMissingRecording) {
  Ran r = runProcess({kStrobe, "report", dir_ + "/none.db"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "strobe: error: no recording at " + dir_ + "/none.db");
}

}  // namespace
}  // namespace strobe::test
