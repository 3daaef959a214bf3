// End to end: JIT code named in reports.
//  - fixture_jit (tests/fixtures/jit.cpp) names two functions, one after the
//    other in the same memory, through libstrobe's JIT API: under `strobe
//    record` (-g fp and -g auto; the API writes a jitdump that strobe reads
//    while recording) and in a library session, each phase's samples carry
//    its own function's name, under its own C caller, down to main.
//  - node --perf-prof: the hot JS function holds most samples under the name
//    its jitdump gives it, the name `perf inject --jit` shows, with a share
//    close to perf's; the recording names it after the jitdump is deleted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

struct Folded {
  std::map<std::string, uint64_t> stacks;  // "root;...;leaf" -> weight
  uint64_t total = 0;
};

Folded parseFolded(const std::string& text) {
  Folded f;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    uint64_t w = std::stoull(line.substr(sp + 1));
    f.stacks[line.substr(0, sp)] += w;
    f.total += w;
  }
  return f;
}

std::vector<std::string> split(const std::string& stack) {
  std::vector<std::string> out;
  std::istringstream in(stack);
  for (std::string s; std::getline(in, s, ';');) out.push_back(s);
  return out;
}

// Shares (percent of all weight) of the fixture's two phases, counted only
// when the stack is whole: the JIT function as the leaf, its own phase's C
// caller below it and main below that; and of samples named wrongly.
struct PhaseShares {
  double first = 0;
  double second = 0;
  double wrong = 0;    // a phase's caller under the other phase's function
  double unnamed = 0;  // a phase's caller with an unnamed leaf ([anon]+0x...)
  std::string dump;    // the folded stacks, for failure messages
};

PhaseShares phaseShares(const Folded& f) {
  PhaseShares s;
  auto pct = [&](uint64_t w) {
    return 100.0 * static_cast<double>(w) / static_cast<double>(f.total);
  };
  for (const auto& [stack, w] : f.stacks) {
    s.dump += stack + " " + std::to_string(w) + "\n";
    std::vector<std::string> frames = split(stack);
    if (frames.empty()) continue;
    const std::string& leaf = frames.back();
    auto has = [&](const std::string& name) {
      return std::find(frames.begin(), frames.end(), name) != frames.end();
    };
    const bool in_first = has("jit_fixture_first_phase");
    const bool in_second = has("jit_fixture_second_phase");
    if (!in_first && !in_second) continue;
    if (leaf.rfind("[anon]", 0) == 0 || leaf.rfind("[unknown]", 0) == 0) s.unnamed += pct(w);
    if ((in_first && leaf == "jit_second_loop") || (in_second && leaf == "jit_first_loop")) {
      s.wrong += pct(w);
    }
    if (!has("main")) continue;
    if (in_first && leaf == "jit_first_loop") s.first += pct(w);
    if (in_second && leaf == "jit_second_loop") s.second += pct(w);
  }
  return s;
}

void expectBothPhasesNamed(const PhaseShares& s) {
  // Each phase is ~0.5 s of CPU in the JIT loop out of ~1.1 s sampled.
  EXPECT_GE(s.first, 30.0) << s.dump;
  EXPECT_GE(s.second, 30.0) << s.dump;
  EXPECT_EQ(s.wrong, 0.0) << s.dump;
  EXPECT_LT(s.unnamed, 2.0) << s.dump;
}

class JitTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }

  // Records `cmd` into dir_/rec.db; "" or why the test cannot go on.
  std::string record(const std::vector<std::string>& opts, const std::vector<std::string>& cmd) {
    std::vector<std::string> argv = {kStrobe, "record", "-o", db()};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    Ran r = runProcess(argv);
    if (r.status != 0 && r.err.find("perf_event") != std::string::npos) {
      return "perf_event refused here: " + r.err;
    }
    if (r.status == 77) return "the fixture cannot run here: " + r.err;
    EXPECT_EQ(r.status, 0) << r.err;
    record_err_ = r.err;
    return "";
  }
  std::string report(std::vector<std::string> opts) {
    std::vector<std::string> argv = {kStrobe, "report", db()};
    argv.insert(argv.end(), opts.begin(), opts.end());
    Ran r = runProcess(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
  std::string db() const { return dir_ + "/rec.db"; }

  std::string dir_;
  std::string record_err_;
};

TEST_F(JitTest, FixtureJitNamedInBothPhasesWithFramePointers) {
  std::string why = record({"-F", "499", "-g", "fp"}, {kFixtures + "fixture_jit"});
  if (!why.empty()) GTEST_SKIP() << why;
  expectBothPhasesNamed(phaseShares(parseFolded(report({"--format", "folded"}))));
  // The module column says [JIT]; the second function's lines are its own.
  EXPECT_NE(report({"--by", "module"}).find("[JIT]"), std::string::npos);
  std::string by_line = report({"--by", "line"});
  EXPECT_NE(by_line.find("second.jit:21"), std::string::npos) << by_line;
  EXPECT_EQ(record_err_.find("jitdump"), std::string::npos) << record_err_;

  // Google's pprof reads the JIT frames: both functions, the [JIT] mapping.
  Ran built = runProcess({STROBE_SOURCE_DIR "/tests/tools/build_pprof.sh", STROBE_BINARY_DIR});
  ASSERT_EQ(built.status, 0) << built.err;
  const std::string pprof = built.out.substr(0, built.out.find('\n'));
  report({"--format", "pprof", "-o", dir_ + "/jit.pb.gz"});
  Ran top = runProcess({pprof, "-top", "-symbolize=none", dir_ + "/jit.pb.gz"});
  ASSERT_EQ(top.status, 0) << top.err;
  for (const char* name : {"jit_first_loop", "jit_second_loop"}) {
    std::istringstream in(top.out);
    double flat = 0;
    // "  494.99ms 49.90% 49.90%   494.99ms 49.90%  jit_second_loop"
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string w; fields >> w;) f.push_back(w);
      if (f.size() == 6 && f[5] == name && f[1].back() == '%') flat = std::stod(f[1]);
    }
    EXPECT_GE(flat, 30.0) << name << "\n" << top.out;
  }
  Ran raw = runProcess({pprof, "-raw", "-symbolize=none", dir_ + "/jit.pb.gz"});
  EXPECT_NE(raw.out.find(" [JIT] "), std::string::npos) << raw.out;
}

TEST_F(JitTest, FixtureJitNamedInBothPhasesWithAutoUnwinding) {
  std::string why = record({"-F", "499", "-g", "auto"}, {kFixtures + "fixture_jit"});
  if (!why.empty()) GTEST_SKIP() << why;
  expectBothPhasesNamed(phaseShares(parseFolded(report({"--format", "folded"}))));
}

TEST_F(JitTest, FixtureJitNamedInALibrarySession) {
  const std::string out = dir_ + "/session.folded";
  Ran r = runProcess({kFixtures + "fixture_jit", "session", out});
  if (r.status == 77) GTEST_SKIP() << "the fixture cannot run here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  expectBothPhasesNamed(phaseShares(parseFolded(readFile(out))));
}

TEST_F(JitTest, FixtureJitNamedInStrobeTop) {
  Ran r = runProcess({kStrobe, "top", "--batch", "--interval", "500ms", "--top", "5", "-F", "499",
                      "--", kFixtures + "fixture_jit"});
  if (r.status != 0 && r.err.find("perf_event") != std::string::npos) {
    GTEST_SKIP() << "perf_event refused here: " << r.err;
  }
  if (r.status == 77) GTEST_SKIP() << "the fixture cannot run here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  // The last snapshot covers the whole run: both functions, each about half.
  const std::string last = r.out.substr(r.out.rfind("strobe top:"));
  for (const char* name : {"jit_first_loop", "jit_second_loop"}) {
    size_t at = last.find(name);
    ASSERT_NE(at, std::string::npos) << last;
    const size_t line = last.rfind('\n', at) + 1;
    const double self = std::stod(last.substr(line, last.find('%', line) - line));
    EXPECT_GE(self, 30.0) << name << "\n" << last;
  }
}

// perf reads the jitdump libstrobe writes: the API works with perf too.
TEST_F(JitTest, FixtureJitNamedByPerfInjectFromLibstrobesJitdump) {
  Ran which = runProcess({"/bin/sh", "-c", "command -v perf"});
  if (which.status != 0)
    GTEST_SKIP() << "perf is not installed (scripts/deps.sh test installs linux-perf)";
  Ran rec = runProcess({"/bin/sh", "-c",
                        "cd '" + dir_ + "' && STROBE_JITDUMP='" + dir_ +
                            "' perf record -q -k 1 -e cpu-clock -F 499 -o perf.data " + kFixtures +
                            "fixture_jit && perf inject --jit -i perf.data -o perf.jit.data"});
  if (rec.status == 77) GTEST_SKIP() << "the fixture cannot run here: " << rec.err;
  if (rec.status != 0) GTEST_SKIP() << "perf record/inject cannot run here: " << rec.err;
  Ran rep = runProcess({"/bin/sh", "-c",
                        "cd '" + dir_ +
                            "' && perf report -i perf.jit.data --stdio --sort sym "
                            "--no-children -g none 2>/dev/null"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::map<std::string, double> shares;
  std::istringstream in(rep.out);
  for (std::string line; std::getline(in, line);) {
    double pct = 0;
    char name[512] = {};
    if (std::sscanf(line.c_str(), " %lf%% [.] %511s", &pct, name) == 2) shares[name] += pct;
  }
  EXPECT_GE(shares["jit_first_loop"], 30.0) << rep.out;
  EXPECT_GE(shares["jit_second_loop"], 30.0) << rep.out;
}

TEST_F(JitTest, FixtureJitWithoutStrobeWritesNoFile) {
  // Not profiled from outside: the API keeps to memory.
  Ran r = runProcess({"/usr/bin/env", "-u", "STROBE_JITDUMP", "/bin/sh", "-c",
                      "cd '" + dir_ + "' && " + kFixtures + "fixture_jit"});
  if (r.status == 77) GTEST_SKIP() << "the fixture cannot run here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    ADD_FAILURE() << "unexpected file " << e.path();
  }
}

// The JS function's name and share in `perf report` of a `perf record -k 1`
// + `perf inject --jit` run of the same script; "" name when perf cannot.
struct PerfTop {
  std::string name;
  double share = 0;
  std::string why_not;
};

PerfTop perfTopSymbol(const std::string& dir, const std::string& script) {
  PerfTop t;
  Ran which = runProcess({"/bin/sh", "-c", "command -v perf"});
  if (which.status != 0) {
    t.why_not = "perf is not installed";
    return t;
  }
  Ran rec = runProcess({"/bin/sh", "-c",
                        "cd '" + dir +
                            "' && perf record -q -k 1 -e cpu-clock -F 499 -o perf.data "
                            "node --perf-prof " +
                            script +
                            " && perf inject --jit -i perf.data "
                            "-o perf.jit.data"});
  if (rec.status != 0) {
    t.why_not = "perf record/inject failed: " + rec.err;
    return t;
  }
  Ran rep = runProcess({"/bin/sh", "-c",
                        "cd '" + dir +
                            "' && perf report -i perf.jit.data --stdio --sort sym "
                            "--no-children -g none 2>/dev/null"});
  // perf keeps code objects of one name apart (one file each): add them up.
  std::map<std::string, double> shares;
  std::istringstream in(rep.out);
  for (std::string line; std::getline(in, line);) {
    double pct = 0;
    char name[512] = {};
    if (line.empty() || line[0] == '#') continue;
    if (std::sscanf(line.c_str(), " %lf%% [.] %511[^\n]", &pct, name) == 2) {
      std::string n = name;
      while (!n.empty() && n.back() == ' ') n.pop_back();
      shares[n] += pct;
    }
  }
  for (const auto& [name, share] : shares) {
    if (share > t.share) {
      t.name = name;
      t.share = share;
    }
  }
  if (t.name.empty()) t.why_not = "no user-space symbol in perf report: " + rep.out.substr(0, 500);
  return t;
}

TEST_F(JitTest, NodePerfProfHotFunctionNamedAsPerfInjectNamesIt) {
  Ran which = runProcess({"/bin/sh", "-c", "command -v node"});
  if (which.status != 0) {
    GTEST_SKIP() << "node is not installed (scripts/deps.sh test installs nodejs)";
  }
  const std::string script = dir_ + "/hot.js";
  {
    std::ofstream js(script);
    js << "function hotLoop(n) {\n"
          "  let acc = 0;\n"
          "  for (let i = 0; i < n; i++) acc = (acc + i * 7) % 1000003;\n"
          "  return acc;\n"
          "}\n"
          "const t0 = process.cpuUsage();\n"
          "let r = 0;\n"
          "for (;;) {\n"
          "  r += hotLoop(200000);\n"
          "  const u = process.cpuUsage(t0);\n"
          "  if (u.user + u.system > 1200000) break;\n"
          "}\n"
          "console.log(r > 0 ? 'ok' : 'no');\n";
  }
  // node --perf-prof writes jit-PID.dump into its working directory.
  std::string why =
      record({"-F", "499"}, {"/bin/sh", "-c", "cd '" + dir_ + "' && exec node --perf-prof hot.js"});
  if (!why.empty()) GTEST_SKIP() << why;
  // The recording needs the jitdump no more.
  std::error_code ec;
  int dumps = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    if (e.path().filename().string().rfind("jit-", 0) == 0) {
      std::filesystem::remove(e.path(), ec);
      ++dumps;
    }
  }
  EXPECT_EQ(dumps, 1);

  model::Profile p = loadRecording(db());
  const auto rows = model::topTable(p, model::GroupBy::kFunction);
  ASSERT_FALSE(rows.empty());
  const double total = static_cast<double>(model::totals(p).weight);
  const std::string& top = rows.front().function;
  const double share = 100.0 * static_cast<double>(rows.front().self) / total;
  EXPECT_EQ(top.rfind("JS:*hotLoop ", 0), 0U) << top;
  EXPECT_NE(top.find("hot.js:1"), std::string::npos) << top;
  EXPECT_GE(share, 50.0) << top;
  EXPECT_EQ(rows.front().module, "[JIT]");
  // A report from the recording alone names it too.
  EXPECT_NE(report({"--top", "5"}).find(top), std::string::npos);

  PerfTop perf = perfTopSymbol(dir_, "hot.js");
  if (!perf.why_not.empty()) {
    std::printf("strobe names %s (%.1f%%); perf comparison not made: %s\n", top.c_str(), share,
                perf.why_not.c_str());
    return;
  }
  std::printf("strobe: %s %.1f%%; perf inject --jit: %s %.1f%%\n", top.c_str(), share,
              perf.name.c_str(), perf.share);
  EXPECT_EQ(top, perf.name);
  EXPECT_NEAR(share, perf.share, 10.0);
}

}  // namespace
}  // namespace strobe::test
