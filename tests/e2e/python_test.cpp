// strobe record on CPython programs (tests/fixtures/python/shares.py) with
// the perf engine: stacks through 3.12+'s perf trampolines (-X perf) reach
// the thread's entry with every Python caller's trampoline on them, and a
// recording of an interpreter whose frames need the BPF engine says so in
// one line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/cpython/pythons.hpp"
#include "model/completeness.hpp"
#include "model/frames.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kPythonShares = STROBE_SOURCE_DIR "/tests/fixtures/python/shares.py";

// The names of a sample's frames, root first.
std::vector<std::string> rootFirstNames(const model::Profile& p, const model::Sample& s) {
  std::vector<std::string> out;
  for (const model::Frame& f : model::rootFirstFrames(p, s.stack, false)) {
    out.push_back(model::frameName(p, f));
  }
  return out;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// -X perf: each Python function entered from C runs through a trampoline
// (JIT code without unwind information, named in /tmp/perf-PID.map as
// py::NAME:FILE); samples in spin() must keep the trampolines of its
// callers, main -> run -> spin, below it, and reach the thread's entry.
void checkTrampolines(int minor) {
  auto pythons = installedPythons(minor);
  if (pythons.empty()) GTEST_SKIP() << noPythonReason(minor);
  const std::string dir = makeTempDir();
  const std::string out = dir + "/py.db";
  Ran r = runProcess({kStrobe, "record", "-F", "499", "-o", out, "--", pythons.front().binary, "-X",
                      "perf", kPythonShares, "1.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  const model::Profile p = loadRecording(out);
  const model::StackCompleteness c = model::stackCompleteness(p);
  ASSERT_GT(c.total, 0u);
  const double reached = 100.0 * static_cast<double>(c.reached) / static_cast<double>(c.total);
  EXPECT_GE(reached, 90.0) << r.err;

  uint64_t spin = 0, whole = 0;
  for (const model::Sample& s : p.samples()) {
    const auto names = rootFirstNames(p, s);
    size_t at = 0;
    bool has_spin = false;
    for (const std::string& n : names) has_spin = has_spin || startsWith(n, "py::spin:");
    if (!has_spin) continue;
    spin += s.weight;
    // The trampolines of <module>, main, run and spin, in that order.
    for (const char* want : {"py::<module>:", "py::main:", "py::run:", "py::spin:"}) {
      while (at < names.size() && !startsWith(names[at], want)) ++at;
    }
    if (at < names.size() && !names.empty() && names.front() == "_start") whole += s.weight;
  }
  ASSERT_GT(spin, 0u) << "no sample in spin's trampoline: " << r.err;
  EXPECT_GE(100.0 * static_cast<double>(whole) / static_cast<double>(spin), 90.0)
      << "of spin's samples, those with every caller's trampoline down to _start";
  removeTree(dir);
}

TEST(PythonPerfEngine, Python312TrampolinesReachTheEntry) {
  checkTrampolines(12);
}
TEST(PythonPerfEngine, Python313TrampolinesReachTheEntry) {
  checkTrampolines(13);
}

// With the perf engine, one line says what Python frames need.
TEST(PythonPerfEngine, SaysPythonFramesNeedTheBpfEngine) {
  auto pythons = installedPythons(11);
  if (pythons.empty()) GTEST_SKIP() << noPythonReason(11);
  const std::string dir = makeTempDir();
  Ran r = runProcess({kStrobe, "record", "-o", dir + "/py.db", "--", pythons.front().binary,
                      kPythonShares, "0.3"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("ran Python code: its Python frames need the BPF engine (--engine bpf, as "
                       "root or with CAP_BPF and CAP_PERFMON); its stacks show the interpreter's "
                       "C functions\n"),
            std::string::npos)
      << r.err;
  removeTree(dir);
}

}  // namespace
}  // namespace strobe::test
