// End to end: call stacks of a program built without frame pointers
// (fixture_deep_nofp: 30 frames of recursion above leaves doing 6:3:1 work,
// 2 threads) under -g dwarf, -g auto and -g fp at 999 Hz.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <map>
#include <thread>

#include "model/aggregate.hpp"
#include "model/completeness.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"
#include "store/store.hpp"

namespace strobe::test {
namespace {

const std::string kDeepNoFp = STROBE_BINARY_DIR "/tests/fixtures/fixture_deep_nofp";

class DwarfTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }
  std::string db() const { return dir_ + "/rec.db"; }

  Ran record(const std::string& mode, std::vector<std::string> args = {}) {
    std::vector<std::string> argv = {kStrobe, "record", "-F", "999", "-g",
                                     mode,    "-o",     db(), "--",  kDeepNoFp};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv);
  }
  model::Profile load() { return loadRecording(db()); }
  std::string dir_;
};

std::string functionOf(const model::Profile& p, model::LocationId id) {
  const model::Location& l = p.locations()[id];
  if (l.lines.empty() || l.lines.back().function == model::kNone) return "?";
  return p.str(p.functions()[l.lines.back().function].name);
}

// Percent of samples whose stack is the full chain: a leaf_* function, 30
// recurse(int) frames, worker(int), and on to the thread's entry (the
// unwinder reached it, or an entry function is on the stack).
double fullChainShare(const model::Profile& p) {
  // Entry judged per sample, as the report does.
  uint64_t full = 0;
  for (const model::Sample& s : p.samples()) {
    std::vector<std::string> names;
    p.forEachFrame(s.stack, [&](model::LocationId l) { names.push_back(functionOf(p, l)); });
    // Time in the kernel (a timer interrupt, a page fault) sits on top.
    if (!names.empty() && names[0] == "[kernel]") names.erase(names.begin());
    if (names.size() < 32 || names[0].rfind("leaf_", 0) != 0) continue;
    bool ok = true;
    for (size_t i = 1; i <= 30; ++i) ok = ok && names[i] == "recurse(int)";
    ok = ok && names[31] == "worker(int)";
    bool entry = s.stack_end == model::StackEnd::kEntry;
    for (const std::string& n : names) entry = entry || model::isThreadEntry(n);
    if (ok && entry) ++full;
  }
  return 100.0 * static_cast<double>(full) / static_cast<double>(p.samples().size());
}

void expectFullChainsAndShares(const Ran& r, const model::Profile& p) {
  ASSERT_GT(p.samples().size(), 1000u);
  EXPECT_GE(fullChainShare(p), 99.0);
  EXPECT_NEAR(selfShare(p, "leaf_six()"), 60.0, 3.0);
  EXPECT_NEAR(selfShare(p, "leaf_three()"), 30.0, 3.0);
  EXPECT_NEAR(selfShare(p, "leaf_one()"), 10.0, 3.0);
  const model::StackCompleteness c = model::stackCompleteness(p);
  EXPECT_GE(static_cast<double>(c.reached), 0.99 * static_cast<double>(c.total));
  // The recorder kept up: under 1% lost at 999 Hz on 2 busy threads.
  EXPECT_LT(static_cast<double>(p.meta().lost_samples),
            0.01 * static_cast<double>(p.samples().size()))
      << r.err;
  EXPECT_NE(r.err.find("strobe: stacks: "), std::string::npos) << r.err;
}

TEST_F(DwarfTest, DwarfGivesFullChainsAndTrueShares) {
  Ran r = record("dwarf");
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_EQ(p.meta().call_graph, "dwarf");
  EXPECT_EQ(p.meta().stack_copy_bytes, 16384u);
  expectFullChainsAndShares(r, p);
  // The report says how complete the stacks are.
  Ran rep = runProcess({kStrobe, "report", db()});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("of the sampled CPU reached the thread's entry"), std::string::npos)
      << rep.out;
}

TEST_F(DwarfTest, AutoGivesFullChains) {
  Ran r = record("auto");
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  EXPECT_EQ(p.meta().call_graph, "auto");
  expectFullChainsAndShares(r, p);
}

TEST_F(DwarfTest, AttachUnwindsARunningProcess) {
  // Modules mapped before the attach come from /proc/PID/maps; the unwinder
  // reads their CFI the same way.
  const std::string out = makeTempDir();
  int pid = startProcess({kDeepNoFp, "200000", "100000"}, out);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Ran r = runProcess({kStrobe, "record", "-F", "999", "-g", "dwarf", "-d", "2s", "-o", db(), "-p",
                      std::to_string(pid)});
  ::kill(pid, SIGKILL);
  waitProcess(pid, out);
  removeTree(out);
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  ASSERT_GT(p.samples().size(), 300u);
  EXPECT_GE(fullChainShare(p), 99.0);
}

TEST_F(DwarfTest, ALibraryMappedDuringTheRunIsUnwound) {
  // libfixture_burn.so is dlopened after recording began: its CFI is read
  // when its first sample is unwound.
  Ran r = runProcess({kStrobe, "record", "-F", "999", "-g", "dwarf", "-o", db(), "--",
                      STROBE_BINARY_DIR "/tests/fixtures/fixture_dlopen",
                      STROBE_BINARY_DIR "/tests/fixtures/libfixture_burn.so"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  uint64_t in_library = 0;
  uint64_t to_main = 0;
  for (const model::Sample& s : p.samples()) {
    std::vector<std::string> names;
    p.forEachFrame(s.stack, [&](model::LocationId l) { names.push_back(functionOf(p, l)); });
    if (names.empty() || names[0] != "burn_in_library") continue;
    ++in_library;
    if (names.size() > 1 && names[1] == "main") ++to_main;
  }
  ASSERT_GT(in_library, 100u);
  EXPECT_GE(static_cast<double>(to_main), 0.99 * static_cast<double>(in_library));
}

TEST_F(DwarfTest, AutoOnAFramePointerBuildKeepsTheLeafsCaller) {
  // fixture_shares keeps frame pointers, but its leaves set up no frame, so a
  // frame-pointer walk from a leaf skips the leaf's caller. -g auto unwinds
  // the leaf with CFI, then walks frame pointers.
  Ran r = runProcess({kStrobe, "record", "-F", "999", "-g", "auto", "-o", db(), "--",
                      STROBE_BINARY_DIR "/tests/fixtures/fixture_shares", "100000", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  uint64_t leaves = 0;
  uint64_t with_caller = 0;
  for (const model::Sample& s : p.samples()) {
    std::vector<std::string> names;
    p.forEachFrame(s.stack, [&](model::LocationId l) { names.push_back(functionOf(p, l)); });
    if (names.empty() || names[0].rfind("work_", 0) != 0) continue;
    ++leaves;
    if (names.size() > 1 && names[1] == "worker(int)") ++with_caller;
  }
  ASSERT_GT(leaves, 300u);
  EXPECT_GE(static_cast<double>(with_caller), 0.99 * static_cast<double>(leaves));
  const model::StackCompleteness c = model::stackCompleteness(p);
  EXPECT_GE(static_cast<double>(c.reached), 0.99 * static_cast<double>(c.total));
}

TEST_F(DwarfTest, FramePointersLoseTheChain) {
  // Proves the fixture is meaningful: without frame pointers the kernel's
  // walk cannot cross the recursion.
  Ran r = record("fp", {"100000", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  ASSERT_GT(p.samples().size(), 300u);
  EXPECT_LT(fullChainShare(p), 5.0);
  const model::StackCompleteness c = model::stackCompleteness(p);
  EXPECT_LT(static_cast<double>(c.reached), 0.05 * static_cast<double>(c.total));
  EXPECT_NE(r.err.find("ended early (broken frame-pointer chain): try -g auto"), std::string::npos)
      << r.err;
}

// fixture_phases' phase_one() and phase_two() set up no frame (leaves), so
// the kernel's frame-pointer walk skips main: -g fp must not claim complete
// stacks (it once said >99.9%), and -g auto, which unwinds the leaf with
// CFI, must not claim 0% for stacks that start at _start (as it once did).
TEST_F(DwarfTest, PhasesCompletenessUnderFpAndAuto) {
  for (const std::string mode : {"fp", "auto"}) {
    SCOPED_TRACE(mode);
    const std::string work = makeTempDir();
    int pid = startProcess({kStrobe, "record", "-F", "999", "-g", mode, "-o", db(), "--",
                            STROBE_BINARY_DIR "/tests/fixtures/fixture_phases", work},
                           work);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(waitForFile(work + "/ready"));
    touch(work + "/go-1");
    ASSERT_TRUE(waitForFile(work + "/done-1"));
    touch(work + "/go-2");
    ASSERT_TRUE(waitForFile(work + "/done-2"));
    touch(work + "/quit");
    Ran r = waitProcess(pid, work);
    removeTree(work);
    ASSERT_EQ(r.status, 0) << r.err;
    model::Profile p = load();
    uint64_t phases = 0;
    uint64_t with_main = 0;
    uint64_t with_marker = 0;
    for (const model::Sample& s : p.samples()) {
      std::vector<std::string> names;
      p.forEachFrame(s.stack, [&](model::LocationId l) { names.push_back(functionOf(p, l)); });
      if (!names.empty() && names[0] == "[kernel]") names.erase(names.begin());
      if (names.size() < 2 || names[0].rfind("phase_", 0) != 0) continue;
      phases += s.weight;
      if (names[1] == "main") with_main += s.weight;
      if (names[1] == "[missing caller]") with_marker += s.weight;
    }
    ASSERT_GT(phases, 0u);
    const model::StackCompleteness c = model::stackCompleteness(p);
    if (mode == "fp") {
      EXPECT_EQ(with_main, 0u);
      EXPECT_GT(static_cast<double>(with_marker), 0.95 * static_cast<double>(phases));
      EXPECT_LT(static_cast<double>(c.reached), 0.05 * static_cast<double>(c.total));
      EXPECT_NE(r.err.find("skipped the caller of a function without a frame pointer ([missing "
                           "caller]): try -g auto"),
                std::string::npos)
          << r.err;
    } else {
      EXPECT_GT(static_cast<double>(with_main), 0.99 * static_cast<double>(phases));
      EXPECT_GT(static_cast<double>(c.reached), 0.99 * static_cast<double>(c.total)) << r.err;
    }
  }
}

TEST_F(DwarfTest, ASmallStackCopyIsReportedAsTruncated) {
  Ran r = record("dwarf,256", {"100000", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = load();
  const model::StackCompleteness c = model::stackCompleteness(p);
  EXPECT_GT(static_cast<double>(c.stack_copy), 0.9 * static_cast<double>(c.total));
  Ran rep = runProcess({kStrobe, "report", db()});
  EXPECT_NE(rep.out.find("truncated at the 256-byte stack copy: try -g dwarf,512"),
            std::string::npos)
      << rep.out;
}

TEST_F(DwarfTest, StackCopySizeIsChecked) {
  Ran r = record("dwarf,100");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: -g dwarf,100: the stack copy size must be a multiple of 8 from 8 to "
            "65528 bytes\n  hint: e.g. -g dwarf,32768\n");
  r = record("dwarf,65536");
  EXPECT_EQ(r.status, 2);
  r = record("dwarf,x");
  EXPECT_EQ(r.status, 2);
  r = runProcess({kStrobe, "record", "-g", "dwarf,65528", "--mmap-pages", "16", "-o", db(), "--",
                  "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: --mmap-pages 16 is too small for a 65528-byte stack copy per sample\n"
            "  hint: use --mmap-pages 128 or more, or a smaller -g dwarf,BYTES\n");
}

}  // namespace
}  // namespace strobe::test
