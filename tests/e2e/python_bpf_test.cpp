// strobe record --engine bpf on CPython programs (tests/fixtures/python/
// shares.py): the Python frames the BPF program reads at each sample take
// the place of the interpreter's eval-loop frames. For each supported
// version (3.11, 3.12, 3.13, skipped with the reason where not installed):
// the script's own clock splits its CPU between spin, churn and squeeze
// (which calls zlib); strobe's shares of the three (their total time, over
// the three) are within 3 points of the script's; zlib's C functions (the
// zlib module's and libz's) are under squeeze in at least 90% of squeeze's
// samples; at least 95% of the
// samples reach the module's top-level frame. A second thread compressing
// with zlib (the GIL released) shows its own Python stack; a running 3.11
// process attached to gives the same shares.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/cpython/pythons.hpp"
#include "bpf_util.hpp"
#include "model/frames.hpp"
#include "model/interpreter_frames.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kSharesScript = STROBE_SOURCE_DIR "/tests/fixtures/python/shares.py";
const std::vector<std::string> kWork = {"spin", "churn", "squeeze"};

// "shares spin=50.1 churn=19.9 squeeze=30.0 seconds=1.50" -> name -> percent.
std::map<std::string, double> scriptShares(const std::string& out) {
  std::map<std::string, double> shares;
  for (const std::string& line : lines(out)) {
    if (line.rfind("shares ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    for (std::string w; words >> w;) {
      const size_t eq = w.find('=');
      if (eq != std::string::npos) shares[w.substr(0, eq)] = std::stod(w.substr(eq + 1));
    }
  }
  return shares;
}

// What a recording says of the script's Python functions.
struct PythonFigures {
  std::map<std::string, uint64_t> total;   // a work function on the stack (weight)
  uint64_t weight = 0;                     // every sample of the threads looked at
  uint64_t module_level = 0;               // ... with <module> at the root end
  uint64_t squeeze = 0, squeeze_zlib = 0;  // squeeze's samples; with zlib below it
  uint64_t packer = 0, packer_python = 0;  // the second thread's; with pack_forever and zlib
  double share(const std::string& fn) const {
    uint64_t sum = 0;
    for (const std::string& w : kWork) sum += total.count(w) ? total.at(w) : 0;
    return sum == 0 || !total.count(fn)
               ? 0.0
               : 100.0 * static_cast<double>(total.at(fn)) / static_cast<double>(sum);
  }
};

PythonFigures pythonFigures(const model::Profile& p) {
  PythonFigures f;
  std::set<int32_t> main_threads;  // a process's first thread: tid = pid
  for (const model::Thread& t : p.threads()) {
    if (t.tid == t.pid) main_threads.insert(t.tid);
  }
  for (const model::Sample& s : p.samples()) {
    const bool main_thread = main_threads.count(s.tid) != 0;
    bool module_level = false, zlib_below = false, packing = false;
    std::string work;  // the innermost work function on the stack
    size_t depth = 0;
    for (const model::Frame& fr : model::rootFirstFrames(p, s.stack, false)) {
      ++depth;
      const std::string name = model::frameName(p, fr);
      const model::ModuleId m = p.locations()[fr.location].module;
      const std::string module = m < p.modules().size() ? p.str(p.modules()[m].path) : "";
      if (model::isPythonModule(module)) {
        if (name == "<module>") module_level = true;
        if (name == "pack_forever") packing = true;
        for (const std::string& w : kWork) {
          if (name == w) work = w;
        }
        zlib_below = false;  // a Python frame nearer the leaf: reset
      } else if (module.find("libz.so") != std::string::npos ||
                 module.find("/zlib.cpython-") != std::string::npos ||
                 name.rfind("zlib_", 0) == 0) {
        zlib_below = true;  // libz, or the zlib module's C code (built in or a .so)
      }
    }
    if (main_thread) {
      f.weight += s.weight;
      if (module_level) f.module_level += s.weight;
      if (!work.empty()) f.total[work] += s.weight;
      if (work == "squeeze") {
        f.squeeze += s.weight;
        if (zlib_below) f.squeeze_zlib += s.weight;
      }
    } else {
      f.packer += s.weight;
      if (packing && zlib_below) f.packer_python += s.weight;
    }
  }
  return f;
}

double percentOf(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void expectShares(const PythonFigures& f, const std::map<std::string, double>& script,
                  const std::string& what) {
  for (const std::string& w : kWork) {
    ASSERT_TRUE(script.count(w)) << what << ": the script printed no share of " << w;
    EXPECT_NEAR(f.share(w), script.at(w), 3.0) << what << ": " << w;
  }
  EXPECT_GE(percentOf(f.squeeze_zlib, f.squeeze), 90.0)
      << what << ": squeeze's samples with zlib's C functions under it";
  std::printf(
      "%s: spin %.1f%% (script %.1f), churn %.1f%% (%.1f), squeeze %.1f%% (%.1f); "
      "zlib under squeeze %.1f%%; main thread at <module> %.1f%%\n",
      what.c_str(), f.share("spin"), script.at("spin"), f.share("churn"), script.at("churn"),
      f.share("squeeze"), script.at("squeeze"), percentOf(f.squeeze_zlib, f.squeeze),
      percentOf(f.module_level, f.weight));
}

class PythonBpf : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BPF();
    auto pythons = installedPythons(GetParam());
    if (pythons.empty()) GTEST_SKIP() << noPythonReason(GetParam());
    python_ = pythons.front().binary;
    dir_ = makeTempDir();
  }
  void TearDown() override {
    if (!dir_.empty()) removeTree(dir_);
  }
  std::string python_, dir_;
};

TEST_P(PythonBpf, SharesZlibUnderItsCallerAndTheModuleAtTheRoot) {
  const std::string db = dir_ + "/py.db";
  Ran r = runProcess({kStrobe, "record", "--engine", "bpf", "-F", "999", "-o", db, "--", python_,
                      kSharesScript, "3.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("need the BPF engine"), std::string::npos) << r.err;
  const PythonFigures f = pythonFigures(loadRecording(db));
  expectShares(f, scriptShares(r.out), python_);
  EXPECT_GE(percentOf(f.module_level, f.weight), 95.0)
      << "samples of the main thread reaching <module>";
}

TEST_P(PythonBpf, ASecondThreadWithoutTheGilHasItsOwnPythonStack) {
  const std::string db = dir_ + "/py.db";
  Ran r = runProcess({kStrobe, "record", "--engine", "bpf", "-F", "999", "-o", db, "--", python_,
                      kSharesScript, "2.0", "--thread"});
  ASSERT_EQ(r.status, 0) << r.err;
  const PythonFigures f = pythonFigures(loadRecording(db));
  ASSERT_GT(f.packer, 0u) << "no sample of the packer thread";
  // pack_forever on the thread's own stack (not <module>: the main
  // thread's), zlib under it.
  EXPECT_GE(percentOf(f.packer_python, f.packer), 90.0)
      << "the packer's samples with pack_forever and zlib under it";
  expectShares(f, scriptShares(r.out), python_ + " --thread");
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonBpf, ::testing::Values(11, 12, 13),
                         [](const auto& info) { return "Python3" + std::to_string(info.param); });

// Attached to a running 3.11 process: its work keeps the script's targets
// (50/20/30), which the shares of a window of it are compared with.
TEST(PythonBpfAttach, AttachedGivesTheSameShares) {
  SKIP_WITHOUT_BPF();
  auto pythons = installedPythons(11);
  if (pythons.empty()) GTEST_SKIP() << noPythonReason(11);
  Background script({pythons.front().binary, kSharesScript, "0.5", "--until-killed"});
  ASSERT_NE(waitForLine(script.dir() + "/stdout", "ready"), "");
  const std::string dir = makeTempDir();
  Ran r = runProcess({kStrobe, "record", "--engine", "bpf", "-F", "999", "-d", "3s", "-p",
                      std::to_string(script.pid()), "-o", dir + "/py.db"});
  ASSERT_EQ(r.status, 0) << r.err;
  const PythonFigures f = pythonFigures(loadRecording(dir + "/py.db"));
  expectShares(f, {{"spin", 50.0}, {"churn", 20.0}, {"squeeze", 30.0}}, "attached");
  EXPECT_GE(percentOf(f.module_level, f.weight), 95.0)
      << "samples of the main thread reaching <module>";
  removeTree(dir);
}

}  // namespace
}  // namespace strobe::test
