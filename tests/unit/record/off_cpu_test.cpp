// Pairing switch-outs with switch-ins into off-CPU samples: across CPUs,
// records that reach strobe out of order (two rings), threads that exit
// while off CPU, and the start and end of the session (intervals clipped to
// it, never negative or unbounded).
#include "record/off_cpu.hpp"

#include <gtest/gtest.h>

#include "../perf/record_builder.hpp"
#include "record/converter.hpp"
#include "record/event_queue.hpp"

namespace strobe::record {
namespace {

using model::OffCpuReason;
using model::SampleKind;

constexpr uint64_t kStart = 1'000'000'000;  // the session's start (CLOCK_MONOTONIC ns)
constexpr uint64_t kMs = 1'000'000;

struct Fixture {
  model::Profile p;
  OffCpuPairer pairer{p, kStart, /*min_ns=*/0};
  model::StackId stack = p.internStack(model::kNone, p.internLocation(model::kNone, 0, 0x401000));
};

TEST(OffCpuPairer, SwitchOutOnOneCpuAndInOnAnother) {
  Fixture f;
  f.pairer.onStackSample(7, kStart + 10 * kMs, 0, f.stack, model::StackEnd::kEntry);
  f.pairer.onSwitchOut(7, kStart + 10 * kMs + 500, 0, false);
  f.pairer.onSwitchIn(7, kStart + 30 * kMs);  // on CPU 1: pairing is by thread
  ASSERT_EQ(f.p.samples().size(), 1u);
  const model::Sample& s = f.p.samples()[0];
  EXPECT_EQ(s.kind, SampleKind::kOffCpu);
  EXPECT_EQ(s.tid, 7);
  EXPECT_EQ(s.cpu, 0u);  // where it left
  EXPECT_EQ(s.stack, f.stack);
  EXPECT_EQ(s.stack_end, model::StackEnd::kEntry);
  // From the switch itself (the SWITCH record), to the switch-in.
  EXPECT_EQ(s.time_ns, 10 * kMs + 500);
  EXPECT_EQ(s.weight, 20 * kMs - 500);
  EXPECT_EQ(s.off_cpu_reason, OffCpuReason::kUnknown);
  EXPECT_EQ(f.pairer.stats().intervals, 1u);
  EXPECT_EQ(f.pairer.stats().unpaired, 0u);
}

TEST(OffCpuPairer, TheSwitchRecordMayComeBeforeItsStackSample) {
  Fixture f;
  f.pairer.onSwitchOut(7, kStart + 10 * kMs, 1, true);
  f.pairer.onStackSample(7, kStart + 10 * kMs, 1, f.stack, model::StackEnd::kNotJudged);
  f.pairer.onSwitchIn(7, kStart + 12 * kMs);
  ASSERT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.p.samples()[0].stack, f.stack);
  EXPECT_EQ(f.p.samples()[0].weight, 2 * kMs);
  // Still runnable when it left: waiting for a CPU, not blocked.
  EXPECT_EQ(f.p.samples()[0].off_cpu_reason, OffCpuReason::kPreempted);
}

TEST(OffCpuPairer, ThreadsAreIndependent) {
  Fixture f;
  for (int32_t tid : {1, 2, 3}) {
    f.pairer.onStackSample(tid, kStart + tid * kMs, 0, f.stack, {});
    f.pairer.onSwitchOut(tid, kStart + tid * kMs, 0, false);
  }
  f.pairer.onSwitchIn(2, kStart + 10 * kMs);
  f.pairer.onSwitchIn(1, kStart + 20 * kMs);
  f.pairer.onSwitchIn(3, kStart + 30 * kMs);
  ASSERT_EQ(f.p.samples().size(), 3u);
  EXPECT_EQ(f.p.samples()[0].tid, 2);
  EXPECT_EQ(f.p.samples()[0].weight, 8 * kMs);
  EXPECT_EQ(f.p.samples()[1].weight, 19 * kMs);
  EXPECT_EQ(f.p.samples()[2].weight, 27 * kMs);
}

TEST(OffCpuPairer, AThreadOffCpuBeforeTheSessionStartsIsClippedToTheStart) {
  Fixture f;
  // Its first record is a switch-in: it was off CPU when the session began.
  f.pairer.onSwitchIn(9, kStart + 40 * kMs);
  ASSERT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.p.samples()[0].time_ns, 0u);
  EXPECT_EQ(f.p.samples()[0].weight, 40 * kMs);
  EXPECT_EQ(f.p.samples()[0].stack, model::kNone);  // its switch-out was not recorded
  EXPECT_EQ(f.pairer.stats().before_start, 1u);
  // A record older than the start (events enabled just before it) is never negative.
  f.pairer.onSwitchIn(10, kStart - 5 * kMs);
  EXPECT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.pairer.stats().short_count, 1u);
  EXPECT_EQ(f.pairer.stats().short_ns, 0u);
}

TEST(OffCpuPairer, OpenIntervalsEndAtTheSessionEnd) {
  Fixture f;
  f.pairer.onStackSample(4, kStart + 50 * kMs, 0, f.stack, {});
  f.pairer.onSwitchOut(4, kStart + 50 * kMs, 0, false);
  // A switch-out after the end (the events are disabled just after it).
  f.pairer.onSwitchOut(5, kStart + 101 * kMs, 0, false);
  auto open = f.pairer.openIntervals(kStart + 60 * kMs);
  ASSERT_EQ(open.size(), 1u);  // thread 5's interval has not begun by then
  EXPECT_EQ(open[0].weight, 10 * kMs);
  EXPECT_TRUE(f.p.samples().empty());  // live views only see them
  f.pairer.finish(kStart + 100 * kMs);
  ASSERT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.p.samples()[0].tid, 4);
  EXPECT_EQ(f.p.samples()[0].weight, 50 * kMs);
  EXPECT_EQ(f.pairer.stats().open_at_end, 2u);
  EXPECT_EQ(f.pairer.stats().short_count, 1u);  // thread 5: 0 ns, clipped
  f.pairer.finish(kStart + 200 * kMs);          // nothing is open any more
  EXPECT_EQ(f.p.samples().size(), 1u);
}

TEST(OffCpuPairer, AThreadThatExitsWhileOffCpuEndsThereAndIsForgotten) {
  Fixture f;
  f.pairer.onStackSample(6, kStart + 10 * kMs, 0, f.stack, {});
  f.pairer.onSwitchOut(6, kStart + 10 * kMs, 0, false);
  f.pairer.onExit(6, kStart + 15 * kMs);
  ASSERT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.p.samples()[0].weight, 5 * kMs);
  EXPECT_EQ(f.pairer.stats().exited_off_cpu, 1u);
  // The dead task's last switch-out opens nothing that could stay open.
  f.pairer.onStackSample(6, kStart + 16 * kMs, 0, f.stack, {});
  f.pairer.onSwitchOut(6, kStart + 16 * kMs, 0, false);
  f.pairer.finish(kStart + 1000 * kMs);
  EXPECT_EQ(f.p.samples().size(), 1u);
  // Its id, reused by a new thread: the new thread is not off CPU before it runs.
  f.pairer.onFork(6);
  f.pairer.onSwitchIn(6, kStart + 1100 * kMs);
  EXPECT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.pairer.stats().before_start, 0u);
  EXPECT_EQ(f.pairer.stats().unpaired, 0u);  // a new thread's first switch-in pairs with nothing
  // A second switch-in without a switch-out, though, lost one.
  f.pairer.onSwitchIn(6, kStart + 1200 * kMs);
  EXPECT_EQ(f.pairer.stats().unpaired, 1u);
}

TEST(OffCpuPairer, ALostSwitchInEndsTheIntervalAtTheNextSignOfLife) {
  Fixture f;
  f.pairer.onStackSample(3, kStart + 10 * kMs, 0, f.stack, {});
  f.pairer.onSwitchOut(3, kStart + 10 * kMs, 0, false);
  // Sampled on a CPU: it was back by then.
  f.pairer.onRunning(3, kStart + 14 * kMs);
  ASSERT_EQ(f.p.samples().size(), 1u);
  EXPECT_EQ(f.p.samples()[0].weight, 4 * kMs);
  EXPECT_EQ(f.pairer.stats().unpaired, 1u);
  // A second switch-out while one is open: that interval's end is unknown.
  f.pairer.onSwitchOut(3, kStart + 20 * kMs, 0, false);
  f.pairer.onSwitchOut(3, kStart + 30 * kMs, 0, false);
  f.pairer.onSwitchIn(3, kStart + 31 * kMs);
  ASSERT_EQ(f.p.samples().size(), 2u);
  EXPECT_EQ(f.p.samples()[1].weight, 1 * kMs);
  EXPECT_EQ(f.pairer.stats().unpaired, 2u);
  EXPECT_EQ(f.pairer.stats().without_stack, 1u);
  // A switch-in of a running thread: its switch-out was lost.
  f.pairer.onSwitchIn(3, kStart + 40 * kMs);
  EXPECT_EQ(f.pairer.stats().unpaired, 3u);
  EXPECT_EQ(f.p.samples().size(), 2u);
}

TEST(OffCpuPairer, ShortIntervalsAreCountedNotStored) {
  model::Profile p;
  OffCpuPairer pairer(p, kStart, /*min_ns=*/100'000);
  for (int i = 0; i < 10; ++i) {
    const uint64_t t = kStart + static_cast<uint64_t>(i) * kMs;
    pairer.onSwitchOut(2, t, 0, false);
    pairer.onSwitchIn(2, t + (i == 9 ? 200'000 : 30'000));
  }
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].weight, 200'000u);
  EXPECT_EQ(pairer.stats().short_count, 9u);
  EXPECT_EQ(pairer.stats().short_ns, 9u * 30'000);
  EXPECT_EQ(pairer.stats().intervals, 1u);
}

TEST(OffCpuPairer, ASwitchInBeforeItsSwitchOutIsNeverNegative) {
  Fixture f;
  f.pairer.onSwitchOut(8, kStart + 10 * kMs, 0, false);
  f.pairer.onSwitchIn(8, kStart + 9 * kMs);
  EXPECT_TRUE(f.p.samples().empty());
  EXPECT_EQ(f.pairer.stats().short_count, 1u);
  EXPECT_EQ(f.pairer.stats().short_ns, 0u);
}

// Records as the kernel writes them, through the queue that merges the
// rings: the switch-in on CPU 1 is read before the switch-out on CPU 0.
TEST(OffCpuConverter, PairsRecordsFromTwoRingsReadOutOfOrder) {
  using perf::testing::RecordBuilder;
  constexpr uint64_t kType = perf::testing::kSampleType;
  model::Profile p;
  Converter c(p, kStart);
  c.enableOffCpu(0);
  auto mmap = perf::Mmap2Record{};
  mmap.pid = 50;
  mmap.tid = 50;
  mmap.addr = 0x400000;
  mmap.len = 0x10000;
  mmap.filename = "/bin/app";
  c.onMmap(mmap);
  EventQueue q(kType);
  // CPU 1's ring: thread 51 comes back at 25 ms.
  auto in = RecordBuilder(PERF_RECORD_SWITCH, 0).sampleId(50, 51, kStart + 25 * kMs, 1).finish();
  q.push(in.hdr(), in.bytes(), in.size, 1);
  // CPU 0's ring: its stack at the switch-out (user part: two frames; a
  // kernel part, which is dropped without -k), then the SWITCH_OUT record.
  auto sample = RecordBuilder(PERF_RECORD_SAMPLE)
                    .u64(0xffffffff81000100)  // ip: in the kernel
                    .u32(50)
                    .u32(51)
                    .u64(kStart + 5 * kMs)
                    .u32(0)
                    .u32(0)
                    .u64(1)  // period
                    .u64(6)  // callchain
                    .u64(perf::kContextKernel)
                    .u64(0xffffffff81000100)
                    .u64(0xffffffff81000200)
                    .u64(perf::kContextUser)
                    .u64(0x401234)
                    .u64(0x401500)
                    .finish();
  q.push(sample.hdr(), sample.bytes(), sample.size, 1);
  auto out = RecordBuilder(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT)
                 .sampleId(50, 51, kStart + 5 * kMs + 100, 0)
                 .finish();
  q.push(out.hdr(), out.bytes(), out.size, 1);
  // A CPU sample of the main ring, tagged 0, later.
  auto cpu = perf::testing::sample();
  q.push(cpu.hdr(), cpu.bytes(), cpu.size, 0);
  q.flushAll(
      [&](const perf::Record& r, uint8_t source) { c.apply(r, static_cast<Stream>(source)); });
  c.finish(kStart + 10'000 * kMs);

  ASSERT_EQ(p.samples().size(), 2u);
  const model::Sample& off = p.samples()[0];
  EXPECT_EQ(off.kind, SampleKind::kOffCpu);
  EXPECT_EQ(off.tid, 51);
  EXPECT_EQ(off.time_ns, 5 * kMs + 100);
  EXPECT_EQ(off.weight, 20 * kMs - 100);
  std::vector<uint64_t> frames;
  p.forEachFrame(off.stack,
                 [&](model::LocationId l) { frames.push_back(p.locations()[l].address); });
  // User frames only (no -k); the caller's return address minus one.
  EXPECT_EQ(frames, (std::vector<uint64_t>{0x401234, 0x4014ff}));
  EXPECT_EQ(p.samples()[1].kind, SampleKind::kCpu);
  EXPECT_EQ(c.stats().switch_samples, 1u);
}

TEST(OffCpuConverter, LostRecordsOfTheOffCpuRingAreSwitchRecords) {
  model::Profile p;
  Converter c(p, kStart);
  c.enableOffCpu(0);
  c.apply(perf::LostRecord{1, 17, kStart}, Stream::kOffCpu);
  c.apply(perf::LostRecord{1, 3, kStart}, Stream::kMain);
  EXPECT_EQ(c.stats().switch_lost, 17u);
  EXPECT_EQ(c.stats().lost, 3u);
}

TEST(OffCpuConverter, CountingEventsGiveCountSamples) {
  model::Profile p;
  p.meta().event = "page-faults";
  Converter c(p, kStart);
  std::vector<uint64_t> chain = {perf::kContextUser, 0x401234};
  perf::SampleRecord r{};
  r.pid = r.tid = 7;
  r.time = kStart + 1;
  r.period = 3;
  r.callchain = chain.data();
  r.callchain_len = chain.size();
  c.onSample(r);
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].kind, SampleKind::kCount);
}

}  // namespace
}  // namespace strobe::record
