// End to end, acceptance 1 of perf.data input: the project's fixtures
// recorded by perf itself in -g, --call-graph dwarf, -a and kernel-inclusive
// modes; `strobe report perf.data` gives each function's self share within
// 1.5 points of `perf report`'s on the same file, and stacks at least as
// complete as strobe's own recording of the same fixture in the same mode.
#include <gtest/gtest.h>

#include "perf_data_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kDeep = kFixtures + "fixture_deep_nofp";
const std::string kSyscalls = kFixtures + "fixture_syscalls";
// About a second of CPU on two threads.
const std::vector<std::string> kDeepRun = {kDeep, "100000", "250"};

// Completeness no worse than strobe's own, within the run-to-run noise of
// two recordings of the fixture (3 points: the syscall fixture's -g
// recordings once differed by 2.4).
void expectAsComplete(const FoldedCompleteness& theirs, const FoldedCompleteness& ours) {
  ASSERT_GT(theirs.total, 0u);
  ASSERT_GT(ours.total, 0u);
  EXPECT_GE(reachedPct(theirs), reachedPct(ours) - 3.0)
      << "imported " << reachedPct(theirs) << "%, strobe's own " << reachedPct(ours) << "%";
  EXPECT_LE(missingCallerPct(theirs), missingCallerPct(ours) + 3.0);
}

class PerfDataModes : public PerfDataTest {
 protected:
  // strobe record -F 999 MODE... -o path(NAME) -- COMMAND...
  void recordOwn(const std::string& name, const std::vector<std::string>& mode,
                 const std::vector<std::string>& command) {
    std::vector<std::string> argv = {kStrobe, "record", "-F", "999"};
    argv.insert(argv.end(), mode.begin(), mode.end());
    argv.insert(argv.end(), {"-o", path(name), "--"});
    argv.insert(argv.end(), command.begin(), command.end());
    Ran r = runProcess(argv);
    ASSERT_EQ(r.status, 0) << r.err;
  }
};

TEST_F(PerfDataModes, FramePointerCallchains) {
  Ran r = record("fp.data", {"-g"}, kSharesRun);
  ASSERT_EQ(r.status, 0) << r.err;
  const Shares perf = perfShares(path("fp.data"));
  const Shares ours = strobeShares(path("fp.data"));
  expectSharesAgree(perf, ours, {"work_six", "work_three", "work_one"});
  EXPECT_NEAR(ours.at("work_six"), 60.0, 5.0);
  // The report says where the recording came from.
  Ran rep = strobe({"report", path("fp.data"), "--top", "3"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("\nsource:    perf.data (perf "), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("event: cpu-clock at 999 Hz"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("command:   " + kShares + " 100000 250\n"), std::string::npos) << rep.out;
  recordOwn("own.db", {"-g", "fp"}, kSharesRun);
  expectAsComplete(completeness(path("fp.data")), completeness(path("own.db")));
}

TEST_F(PerfDataModes, DwarfStacksUnwoundByStrobe) {
  Ran r = record("dwarf.data", {"--call-graph", "dwarf"}, kDeepRun);
  ASSERT_EQ(r.status, 0) << r.err;
  const Shares perf = perfShares(path("dwarf.data"));
  const Shares ours = strobeShares(path("dwarf.data"));
  expectSharesAgree(perf, ours, {"leaf_six", "leaf_three", "leaf_one"});
  recordOwn("own.db", {"-g", "dwarf"}, kDeepRun);
  const FoldedCompleteness theirs = completeness(path("dwarf.data"));
  expectAsComplete(theirs, completeness(path("own.db")));
  // Through all 30 recurse frames of a program without frame pointers.
  EXPECT_GE(reachedPct(theirs), 95.0);
  Ran folded = strobe({"report", path("dwarf.data"), "--format", "folded"});
  EXPECT_NE(folded.out.find(";worker(int);recurse(int);recurse(int);"), std::string::npos);
}

TEST_F(PerfDataModes, SystemWide) {
  Ran r = record("all.data", {"-a", "-g"}, kSharesRun);
  if (r.status != 0) GTEST_SKIP() << "perf record -a refuses to run here: " << r.err;
  // The fixture's threads among everything else the machine ran.
  const Shares perf = perfShares(path("all.data"), {"--comms", "fixture_shares"});
  const Shares ours = strobeShares(path("all.data"), {"--thread", "fixture_shares"});
  expectSharesAgree(perf, ours, {"work_six", "work_three", "work_one"});
  Ran rep = strobe({"report", path("all.data"), "--by", "thread", "--top", "0"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("command:   the whole system\n"), std::string::npos) << rep.out;
  {
    // strobe record -a takes no command: the fixture runs beside it.
    Background fixture(kSharesRun);
    Ran own = runProcess(
        {kStrobe, "record", "-a", "-F", "999", "-g", "fp", "-d", "2s", "-o", path("own.db")});
    ASSERT_EQ(own.status, 0) << own.err;
    ASSERT_EQ(fixture.wait().status, 0);
  }
  expectAsComplete(completeness(path("all.data"), {"--thread", "fixture_shares"}),
                   completeness(path("own.db"), {"--thread", "fixture_shares"}));
}

TEST_F(PerfDataModes, KernelFramesNamed) {
  // Most of the time in the kernel; perf as root samples it and its stacks.
  Ran r = record("kernel.data", {"-g"}, {kSyscalls, "1.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Shares perf = perfShares(path("kernel.data"));
  const Shares ours = strobeShares(path("kernel.data"));
  std::vector<std::string> names;
  for (const auto& [name, pct] : perf) {
    // Names both tools give (libc's write is "write" or an alias of it).
    if (pct >= 3.0 && ours.count(name) != 0) names.push_back(name);
  }
  ASSERT_GE(names.size(), 3u) << "too few names in common";
  expectSharesAgree(perf, ours, names);
  Ran rep = strobe({"report", path("kernel.data"), "--top", "5"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("[kernel.kallsyms]"), std::string::npos) << rep.out;
  recordOwn("own.db", {"-k", "-g", "fp"}, {kSyscalls, "1.0"});
  expectAsComplete(completeness(path("kernel.data")), completeness(path("own.db")));
}

}  // namespace
}  // namespace strobe::test
