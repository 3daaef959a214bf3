// The rows of `strobe top` from a hand-built Profile: shares, the time
// window, rows by line, the text form and the keys.
#include <gtest/gtest.h>

#include <string>

#include "model/profile.hpp"
#include "tui/keys.hpp"
#include "tui/snapshot.hpp"
#include "tui/text_view.hpp"

namespace strobe::tui {
namespace {

constexpr uint64_t kMs = 1'000'000;

// First second: main calls work_six, work_three and work_one 6 : 3 : 1
// (work_six's samples on two lines, 12 and 13); second second: only late().
// One sample per ms on each of two threads, 1 ms of CPU each.
model::Profile phasedProfile() {
  using namespace strobe::model;
  Profile p;
  p.meta().command = {"./shares", "100"};
  p.meta().event = "cpu-clock";
  ModuleId exe = p.internModule("/t/shares", "");
  FunctionId f_main = p.internFunction("main", "main", "/src/shares.cpp", 30);
  FunctionId f_six = p.internFunction("work_six()", "_Z8work_sixv", "/src/shares.cpp", 10);
  FunctionId f_three = p.internFunction("work_three()", "_Z10work_threev", "/src/shares.cpp", 15);
  FunctionId f_one = p.internFunction("work_one()", "_Z8work_onev", "/src/shares.cpp", 20);
  FunctionId f_late = p.internFunction("late()", "_Z4latev", "/src/shares.cpp", 25);
  auto loc = [&](uint64_t off, FunctionId f, uint32_t line) {
    LocationId l = p.internLocation(exe, off, 0x1000 + off);
    p.mutableLocations()[l].lines = {{f, line}};
    return l;
  };
  StackId s_main = p.internStack(kNone, loc(0x100, f_main, 32));
  StackId s_six12 = p.internStack(s_main, loc(0x200, f_six, 12));
  StackId s_six13 = p.internStack(s_main, loc(0x210, f_six, 13));
  StackId s_three = p.internStack(s_main, loc(0x300, f_three, 16));
  StackId s_one = p.internStack(s_main, loc(0x400, f_one, 21));
  StackId s_late = p.internStack(s_main, loc(0x500, f_late, 26));
  p.setThread({7, 7, "shares"});
  p.setThread({8, 7, "shares"});
  for (uint64_t i = 0; i < 1000; ++i) {
    uint64_t r = i % 10;
    StackId s = r < 4 ? s_six12 : r < 6 ? s_six13 : r < 9 ? s_three : s_one;
    p.addSample({i * kMs, 7, 0, s, kMs});
    p.addSample({i * kMs, 8, 1, s, kMs});
  }
  for (uint64_t i = 1000; i < 2000; ++i) p.addSample({i * kMs, 7, 0, s_late, kMs});
  return p;
}

const SnapshotRow* find(const Snapshot& s, const std::string& name) {
  for (const SnapshotRow& r : s.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(Snapshot, CumulativeSharesAndHeader) {
  model::Profile p = phasedProfile();
  p.mutableSamples().resize(2000);  // the first second only
  Snapshot s = buildSnapshot(p, SnapshotOptions{}, SessionStatus{1000 * kMs, 3});
  EXPECT_EQ(s.totals.samples, 2000u);
  EXPECT_EQ(s.totals.weight, 2000 * kMs);
  EXPECT_EQ(s.totals.threads, 2u);
  EXPECT_EQ(s.lost, 3u);
  EXPECT_EQ(s.span_ns, 1000 * kMs);
  EXPECT_DOUBLE_EQ(s.samples_per_s, 2000.0);
  EXPECT_EQ(s.target, "./shares 100");
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_EQ(s.rows[0].name, "work_six()");
  EXPECT_DOUBLE_EQ(s.rows[0].self_pct, 60.0);
  EXPECT_EQ(s.rows[0].samples, 1200u);
  EXPECT_EQ(s.rows[0].location, "shares.cpp:10");
  EXPECT_EQ(s.rows[1].name, "work_three()");
  EXPECT_DOUBLE_EQ(s.rows[1].self_pct, 30.0);
  EXPECT_EQ(s.rows[2].name, "work_one()");
  EXPECT_DOUBLE_EQ(s.rows[2].self_pct, 10.0);
  EXPECT_EQ(s.rows[3].name, "main");
  EXPECT_DOUBLE_EQ(s.rows[3].self_pct, 0.0);
  EXPECT_DOUBLE_EQ(s.rows[3].total_pct, 100.0);
  EXPECT_EQ(s.rows[3].samples, 0u);
}

TEST(Snapshot, WindowDropsOldSamples) {
  model::Profile p = phasedProfile();
  SnapshotOptions opt;
  opt.window_ns = 500 * kMs;
  Snapshot s = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 0});
  EXPECT_EQ(s.totals.samples, 500u);  // samples at 1500..1999 ms
  EXPECT_EQ(s.totals.threads, 1u);
  EXPECT_EQ(s.span_ns, 500 * kMs);
  EXPECT_DOUBLE_EQ(s.samples_per_s, 1000.0);
  EXPECT_EQ(find(s, "work_six()"), nullptr);
  const SnapshotRow* late = find(s, "late()");
  ASSERT_NE(late, nullptr);
  EXPECT_DOUBLE_EQ(late->self_pct, 100.0);

  // Cumulative, the first phase still dominates: 2,000 of 3,000 samples.
  Snapshot all = buildSnapshot(p, SnapshotOptions{}, SessionStatus{2000 * kMs, 0});
  EXPECT_EQ(all.totals.samples, 3000u);
  ASSERT_NE(find(all, "work_six()"), nullptr);
  EXPECT_DOUBLE_EQ(find(all, "work_six()")->self_pct, 40.0);
  EXPECT_NEAR(find(all, "late()")->self_pct, 100.0 / 3.0, 1e-9);

  // A window longer than the session so far covers all of it.
  opt.window_ns = 5000 * kMs;
  Snapshot wide = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 0});
  EXPECT_EQ(wide.totals.samples, 3000u);
  EXPECT_EQ(wide.span_ns, 2000 * kMs);
  EXPECT_EQ(samplesInWindow(p, 2000 * kMs, 1000 * kMs).size(), 1000u);
}

TEST(Snapshot, ByLineSplitsAFunctionsLines) {
  model::Profile p = phasedProfile();
  p.mutableSamples().resize(2000);
  SnapshotOptions opt;
  opt.by = model::GroupBy::kLine;
  Snapshot s = buildSnapshot(p, opt, SessionStatus{1000 * kMs, 0});
  ASSERT_GE(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].name, "work_six()");
  EXPECT_EQ(s.rows[0].location, "shares.cpp:12");
  EXPECT_DOUBLE_EQ(s.rows[0].self_pct, 40.0);
  EXPECT_EQ(s.rows[1].name, "work_three()");
  EXPECT_EQ(s.rows[1].location, "shares.cpp:16");
  EXPECT_EQ(s.rows[2].name, "work_six()");
  EXPECT_EQ(s.rows[2].location, "shares.cpp:13");
  EXPECT_DOUBLE_EQ(s.rows[2].self_pct, 20.0);
}

TEST(Snapshot, ByThreadAndModuleHaveNoLocation) {
  model::Profile p = phasedProfile();
  SnapshotOptions opt;
  opt.by = model::GroupBy::kThread;
  Snapshot s = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 0});
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].name, "shares (7)");
  EXPECT_EQ(s.rows[0].samples, 2000u);
  EXPECT_EQ(s.rows[0].location, "");
  opt.by = model::GroupBy::kModule;
  s = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 0});
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].name, "shares");
  EXPECT_DOUBLE_EQ(s.rows[0].total_pct, 100.0);
}

TEST(Snapshot, TopKeepsTheHottestRows) {
  model::Profile p = phasedProfile();
  SnapshotOptions opt;
  opt.top = 2;
  Snapshot s = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 0});
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.hidden_rows, 3u);
  EXPECT_EQ(s.rows[0].name, "work_six()");
  EXPECT_EQ(s.rows[1].name, "late()");
}

// --view wall: thread 8 waits from 1 s on; the part of its wait still open
// at the refresh counts too, clipped to the window.
TEST(Snapshot, WallViewCountsWaitsStillOpen) {
  model::Profile p = phasedProfile();
  p.meta().off_cpu = 1;
  model::Sample wait{1000 * kMs, 8, 1, p.samples()[0].stack, 600 * kMs};
  wait.kind = model::SampleKind::kOffCpu;
  p.addSample(wait);  // 1.0 s to 1.6 s, closed
  SnapshotOptions opt;
  opt.by = model::GroupBy::kThread;
  SessionStatus status{2000 * kMs, 0};
  model::Sample open = wait;
  open.time_ns = 1600 * kMs;
  open.weight = 400 * kMs;  // 1.6 s to now
  status.open_off_cpu.push_back(open);
  Snapshot s = buildSnapshot(p, opt, status);  // the recording's view: wall
  EXPECT_EQ(s.label, "wall");
  EXPECT_EQ(s.totals.weight, 4000 * kMs);  // 2 s of each thread
  EXPECT_EQ(s.cpu_ns, 3000 * kMs);
  EXPECT_EQ(s.off_cpu_ns, 1000 * kMs);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rows[0].self_pct, 50.0);
  EXPECT_DOUBLE_EQ(s.rows[1].self_pct, 50.0);
  EXPECT_NE(formatSnapshot(s).find("sampled wall 4.00 s (CPU 3.00 s + off-CPU 1.00 s)"),
            std::string::npos)
      << formatSnapshot(s);
  // The last 0.5 s: thread 8 only waited, thread 7 only ran.
  opt.window_ns = 500 * kMs;
  s = buildSnapshot(p, opt, status);
  EXPECT_EQ(s.totals.weight, 1000 * kMs);
  EXPECT_EQ(s.off_cpu_ns, 500 * kMs);
  // The CPU view leaves the waits out; the off-CPU view keeps only them.
  opt.window_ns = 0;
  opt.view = model::View::kCpu;
  EXPECT_EQ(buildSnapshot(p, opt, status).totals.weight, 3000 * kMs);
  opt.view = model::View::kOffCpu;
  s = buildSnapshot(p, opt, status);
  EXPECT_EQ(s.totals.weight, 1000 * kMs);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].name, "shares (8)");
  // A wait that began before the window counts from the window's start.
  std::vector<model::Sample> w = samplesInWindow(p, 1500 * kMs, 200 * kMs);
  uint64_t off = 0;
  for (const model::Sample& x : w) off += x.kind == model::SampleKind::kOffCpu ? x.weight : 0;
  EXPECT_EQ(off, 300 * kMs);  // 1.3 s to 1.6 s
}

TEST(TextView, SnapshotAsText) {
  model::Profile p = phasedProfile();
  SnapshotOptions opt;
  opt.top = 3;
  opt.window_ns = 1500 * kMs;
  Snapshot s = buildSnapshot(p, opt, SessionStatus{2000 * kMs, 4});
  EXPECT_EQ(formatSnapshot(s),
            "strobe top: ./shares 100   elapsed 2.00 s   sampled CPU 2.00 s   1333 samples/s   "
            "4 lost   2 threads   last 1.50 s\n"
            " SELF%  TOTAL%   SAMPLES  FUNCTION      LOCATION\n"
            " 50.0%   50.0%      1000  late()        shares.cpp:25\n"
            " 30.0%   30.0%       600  work_six()    shares.cpp:10\n"
            " 15.0%   15.0%       300  work_three()  shares.cpp:15\n");
  model::Profile empty;
  Snapshot none = buildSnapshot(empty, SnapshotOptions{}, SessionStatus{kMs, 0});
  EXPECT_EQ(formatSnapshot(none),
            "strobe top:    elapsed 1.0 ms   sampled CPU 0   0 samples/s   0 lost   0 threads   "
            "cumulative\n"
            " SELF%  TOTAL%   SAMPLES  FUNCTION  LOCATION\n"
            "(no samples)\n");
}

TEST(Keys, SwitchGroupingWindowAndRows) {
  ViewState v;
  v.window_ns = 2000 * kMs;
  EXPECT_EQ(applyKey('l', v), KeyEffect::kRedraw);
  EXPECT_EQ(v.view.by, model::GroupBy::kLine);
  EXPECT_EQ(applyKey('l', v), KeyEffect::kNone);
  EXPECT_EQ(applyKey('f', v), KeyEffect::kRedraw);
  EXPECT_EQ(v.view.by, model::GroupBy::kFunction);
  EXPECT_EQ(applyKey('w', v), KeyEffect::kRedraw);
  EXPECT_EQ(v.view.window_ns, 2000 * kMs);
  EXPECT_EQ(applyKey('w', v), KeyEffect::kRedraw);
  EXPECT_EQ(v.view.window_ns, 0u);
  v.view.top = 2;
  EXPECT_EQ(applyKey('+', v), KeyEffect::kRedraw);
  EXPECT_EQ(v.view.top, 3u);
  EXPECT_EQ(applyKey('-', v), KeyEffect::kRedraw);
  EXPECT_EQ(applyKey('-', v), KeyEffect::kRedraw);
  EXPECT_EQ(applyKey('-', v), KeyEffect::kNone);
  EXPECT_EQ(v.view.top, 1u);
  EXPECT_EQ(applyKey('x', v), KeyEffect::kNone);
  EXPECT_EQ(applyKey('q', v), KeyEffect::kQuit);
}

}  // namespace
}  // namespace strobe::tui
