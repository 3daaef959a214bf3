// End to end: `strobe top` in batch mode (its output is a pipe here):
// snapshots of a launched command and of an attached process with the
// shares fixture's 6:3:1, the time window against the cumulative view on a
// program that works in two phases, and the errors it shares with record.
// Shares are asserted within tolerances, never exact counts.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_process.hpp"

namespace strobe::test {
namespace {

// One batch snapshot: its header line and SELF% by row name (summed over
// rows of the same name).
struct Snapshot {
  std::string header;
  std::map<std::string, double> self;
};

// Snapshots are separated by a blank line; each is a header line, the
// column headings, then rows "SELF%  TOTAL%  SAMPLES  NAME  LOCATION" (SELF%
// marked "*" when it rests on few samples), then maybe a line on those.
std::vector<Snapshot> parseSnapshots(const std::string& out) {
  std::vector<Snapshot> snaps;
  std::istringstream in(out);
  std::string line;
  bool start = true;
  while (std::getline(in, line)) {
    if (line.empty()) {
      start = true;
      continue;
    }
    if (start) {
      snaps.push_back(Snapshot{line, {}});
      start = false;
      continue;
    }
    double self = 0;
    double total = 0;
    unsigned long long samples = 0;
    int used = 0;
    if (size_t mark = line.find("%*"); mark != std::string::npos) line[mark + 1] = ' ';
    if (std::sscanf(line.c_str(), " %lf%% %lf%% %llu %n", &self, &total, &samples, &used) < 3) {
      continue;  // the headings, "(no samples)"
    }
    std::string rest = line.substr(static_cast<size_t>(used));
    size_t gap = rest.find("  ");
    snaps.back().self[rest.substr(0, gap)] += self;  // by line: a function's lines add up
  }
  return snaps;
}

double selfOf(const Snapshot& s, const std::string& name) {
  auto it = s.self.find(name);
  return it == s.self.end() ? 0.0 : it->second;
}

TEST(TopTest, LaunchedCommandGetsThreeSnapshotsWithItsShares) {
  Ran r = runProcess({kStrobe, "top", "--batch", "-n", "3", "--interval", "500ms", "-F", "999",
                      "--", kFixtures + "fixture_shares", "200000", "2000"});
  // After the third snapshot the command is stopped, as at the end of -d.
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  std::vector<Snapshot> snaps = parseSnapshots(r.out);
  ASSERT_EQ(snaps.size(), 3u) << r.out;
  for (const Snapshot& s : snaps) {
    EXPECT_EQ(
        s.header.rfind("strobe top: " + kFixtures + "fixture_shares 200000 2000   elapsed ", 0), 0u)
        << s.header;
    EXPECT_NE(s.header.find(" cumulative"), std::string::npos) << s.header;
  }
  const Snapshot& last = snaps.back();
  EXPECT_NEAR(selfOf(last, "work_six()"), 60.0, 5.0) << r.out;
  EXPECT_NEAR(selfOf(last, "work_three()"), 30.0, 5.0) << r.out;
  EXPECT_NEAR(selfOf(last, "work_one()"), 10.0, 5.0) << r.out;
  EXPECT_EQ(r.err.find("strobe: error"), std::string::npos) << r.err;
}

TEST(TopTest, AttachedProcessWithoutBatchFlagPrintsTextWhenPiped) {
  Background fixture({kFixtures + "fixture_shares", "200000", "2000"});
  ASSERT_GT(fixture.pid(), 0);
  const std::string pid = std::to_string(fixture.pid());
  Ran r = runProcess(
      {kStrobe, "top", "-n", "2", "--interval", "700ms", "-F", "999", "--by", "line", "-p", pid});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<Snapshot> snaps = parseSnapshots(r.out);
  ASSERT_EQ(snaps.size(), 2u) << r.out;
  EXPECT_EQ(snaps[0].header.rfind("strobe top: pid " + pid + " (", 0), 0u) << snaps[0].header;
  // By line: each work function's loop is one line.
  const Snapshot& last = snaps.back();
  EXPECT_NEAR(selfOf(last, "work_six()"), 60.0, 6.0) << r.out;
  EXPECT_NEAR(selfOf(last, "work_three()"), 30.0, 6.0) << r.out;
  EXPECT_NEAR(selfOf(last, "work_one()"), 10.0, 6.0) << r.out;
  const int loop = lineOf(STROBE_SOURCE_DIR "/tests/fixtures/shares.cpp", "work_six's loop");
  ASSERT_GT(loop, 0);
  EXPECT_NE(r.out.find("  work_six()  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shares.cpp:" + std::to_string(loop) + "\n"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists("/proc/" + pid)) << "top must leave the target running";
}

// Two phases of work a second apart: a 400 ms window never holds both,
// while the cumulative view ends with both. Both views watch the same run.
TEST(TopTest, WindowForgetsTheFirstPhaseCumulativeKeepsIt) {
  const std::string work = makeTempDir();
  Background fixture({kFixtures + "fixture_phases", work});
  ASSERT_GT(fixture.pid(), 0);
  ASSERT_TRUE(waitForFile(work + "/ready"));
  const std::string pid = std::to_string(fixture.pid());
  Background windowed({kStrobe, "top", "--batch", "--interval", "200ms", "--window", "400ms", "-F",
                       "999", "-p", pid});
  Background cumulative({kStrobe, "top", "--batch", "--interval", "200ms", "-F", "999", "-p", pid});
  // Both are sampling once they printed a snapshot.
  ASSERT_TRUE(waitForFile(windowed.dir() + "/stdout"));
  for (int i = 0; i < 500; ++i) {
    if (readFile(windowed.dir() + "/stdout").find("strobe top:") != std::string::npos &&
        readFile(cumulative.dir() + "/stdout").find("strobe top:") != std::string::npos) {
      break;
    }
    sleepMs(20);
  }
  touch(work + "/go-1");
  ASSERT_TRUE(waitForFile(work + "/done-1"));
  sleepMs(1000);
  touch(work + "/go-2");
  ASSERT_TRUE(waitForFile(work + "/done-2"));
  sleepMs(600);
  touch(work + "/quit");
  EXPECT_EQ(fixture.wait().status, 0);
  Ran w = windowed.wait();
  Ran c = cumulative.wait();
  removeTree(work);
  ASSERT_EQ(w.status, 0) << w.err;
  ASSERT_EQ(c.status, 0) << c.err;

  std::vector<Snapshot> ws = parseSnapshots(w.out);
  bool saw_one = false;
  bool saw_two = false;
  for (const Snapshot& s : ws) {
    EXPECT_NE(s.header.find("   last 400.0 ms"), std::string::npos) << s.header;
    const bool one = s.self.count("phase_one()") != 0;
    const bool two = s.self.count("phase_two()") != 0;
    EXPECT_FALSE(one && two) << "a 400 ms window holds both phases:\n" << w.out;
    saw_one = saw_one || one;
    saw_two = saw_two || two;
  }
  EXPECT_TRUE(saw_one) << w.out;
  EXPECT_TRUE(saw_two) << w.out;

  std::vector<Snapshot> cs = parseSnapshots(c.out);
  ASSERT_FALSE(cs.empty()) << c.out;
  EXPECT_GT(selfOf(cs.back(), "phase_one()"), 20.0) << c.out;
  EXPECT_GT(selfOf(cs.back(), "phase_two()"), 20.0) << c.out;
}

TEST(TopTest, ErrorsWordForWord) {
  Ran r = runProcess({kStrobe, "top", "-p", "2147483647"});
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err,
            "strobe: error: no process with pid 2147483647\n"
            "  hint: check the pid; the process may have exited\n");
  EXPECT_EQ(r.out, "");

  r = runProcess({kStrobe, "top"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: nothing to profile\n"
            "  hint: usage: strobe top [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME\n");

  r = runProcess({kStrobe, "top", "--by", "file", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: --by file is not a top grouping\n"
            "  hint: use --by function, line, module or thread\n");

  r = runProcess({kStrobe, "top", "--interval", "soon", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: malformed duration 'soon'\n"
            "  hint: use e.g. 30s, 1h30m, 250ms, 100us or plain seconds (2.5)\n");
}

// A command that ends before the first refresh still gets one snapshot, and
// top exits with the command's own status.
TEST(TopTest, ShortCommandGetsAFinalSnapshotAndItsStatus) {
  Ran r = runProcess({kStrobe, "top", "--interval", "10s", "-F", "999", "--",
                      kFixtures + "fixture_shares", "100000", "20"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<Snapshot> snaps = parseSnapshots(r.out);
  ASSERT_EQ(snaps.size(), 1u) << r.out;
  EXPECT_GT(selfOf(snaps[0], "work_six()"), 30.0) << r.out;

  // Even with nothing sampled at all (one sample per second of CPU).
  r = runProcess({kStrobe, "top", "-c", "1000000000", "--", "/bin/false"});
  EXPECT_EQ(r.status, 1) << r.err;
  snaps = parseSnapshots(r.out);
  ASSERT_EQ(snaps.size(), 1u) << r.out;
  EXPECT_NE(r.out.find("\n(no samples)\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace strobe::test
