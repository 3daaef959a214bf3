// ThrottleAccount: a throttled interval goes into the weight of the sample
// the throttle began with, capped at one tick; the totals say how much.
#include "record/throttle_account.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace strobe::record {
namespace {

constexpr uint64_t kPeriod = 1'001'001;  // 999 Hz

model::Sample sampleOf(int32_t tid, uint64_t time_ns = 0, uint32_t cpu = 0) {
  model::Sample s;
  s.tid = tid;
  s.time_ns = time_ns;
  s.cpu = cpu;
  s.weight = kPeriod;
  return s;
}

TEST(ThrottleAccount, TheIntervalWeighsOnTheSampleTheThrottleBeganWith) {
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);
  a.onThrottle(/*event_id=*/40, /*tid=*/7, /*time=*/1'000'000);
  samples.push_back(sampleOf(7));  // the sample that hit the limit
  a.onSample(samples, samples.back().time_ns);
  a.onUnthrottle(40, 3'500'000, samples);
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);

  EXPECT_EQ(samples[0].weight, kPeriod);
  EXPECT_EQ(samples[1].weight, kPeriod + 2'500'000);
  EXPECT_EQ(samples[2].weight, kPeriod);
  EXPECT_EQ(a.throttledNs(), 2'500'000u);
  EXPECT_EQ(a.weightedNs(), 2'500'000u);
}

TEST(ThrottleAccount, AnIntervalCountsAtMostOneTick) {
  // Unthrottled at the thread's next switch-in: time off the CPU too.
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  a.onThrottle(40, 7, 0);
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);
  a.onUnthrottle(40, 50'000'000, samples);
  EXPECT_EQ(samples[0].weight, kPeriod + ThrottleAccount::kMaxTickNs);
  EXPECT_EQ(a.throttledNs(), 50'000'000u);
  EXPECT_EQ(a.weightedNs(), ThrottleAccount::kMaxTickNs);
}

TEST(ThrottleAccount, EventsAreTrackedApartAndOthersSamplesAreLeftAlone) {
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  a.onThrottle(40, 7, 0);
  a.onThrottle(41, 8, 100);
  samples.push_back(sampleOf(8, 150, 1));  // thread 8's throttling sample, on CPU 1
  a.onSample(samples, samples.back().time_ns);
  samples.push_back(sampleOf(7, 160, 0));
  a.onSample(samples, samples.back().time_ns);
  a.onUnthrottle(41, 1'100, samples);
  a.onUnthrottle(40, 2'000, samples);
  EXPECT_EQ(samples[0].weight, kPeriod + 1'000);
  EXPECT_EQ(samples[1].weight, kPeriod + 2'000);
}

TEST(ThrottleAccount, AnotherThreadsSampleOnThatCpuEndsTheWeightedPart) {
  // Thread 7 was switched out before the tick; thread 8 ran on its CPU
  // and was sampled there at 2 ms; 7 was unthrottled at its switch-in.
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  a.onThrottle(40, 7, 1'000'000);
  samples.push_back(sampleOf(7, 1'000'000, 0));
  a.onSample(samples, samples.back().time_ns);
  samples.push_back(sampleOf(9, 1'600'000, 1));  // another CPU: says nothing of 7
  a.onSample(samples, samples.back().time_ns);
  samples.push_back(sampleOf(8, 2'000'000, 0));
  a.onSample(samples, samples.back().time_ns);
  samples.push_back(sampleOf(8, 3'000'000, 0));
  a.onSample(samples, samples.back().time_ns);
  a.onUnthrottle(40, 4'500'000, samples);
  EXPECT_EQ(samples[0].weight, kPeriod + 1'000'000);
  EXPECT_EQ(samples[2].weight, kPeriod);
  EXPECT_EQ(a.throttledNs(), 3'500'000u);
  EXPECT_EQ(a.weightedNs(), 1'000'000u);
}

TEST(ThrottleAccount, ExitEndsOpenThrottlesAndUnknownEventsAreIgnored) {
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  a.onUnthrottle(99, 5'000, samples);  // throttled before the recording began
  EXPECT_EQ(a.throttledNs(), 0u);
  a.onThrottle(40, 7, 1'000);
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);
  a.onExit(7, 2'000, samples);
  EXPECT_EQ(samples[0].weight, kPeriod + 1'000);
  a.onUnthrottle(40, 3'000, samples);  // gone with the thread
  EXPECT_EQ(a.throttledNs(), 1'000u);
}

TEST(ThrottleAccount, AThrottleWithoutItsSampleIsCountedNotWeighted) {
  // The sample that hit the limit was lost (the ring was full).
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  a.onThrottle(40, 7, 0);
  a.onUnthrottle(40, 1'000, samples);
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);
  EXPECT_EQ(samples[0].weight, kPeriod);
  EXPECT_EQ(a.throttledNs(), 1'000u);
  EXPECT_EQ(a.weightedNs(), 0u);
}

TEST(ThrottleAccount, CountingEventsWeightsAreCountsNotTime) {
  ThrottleAccount a(/*weigh=*/false);  // e.g. page-faults
  std::vector<model::Sample> samples;
  a.onThrottle(40, 7, 0);
  samples.push_back(sampleOf(7));
  a.onSample(samples, samples.back().time_ns);
  a.onUnthrottle(40, 1'000, samples);
  EXPECT_EQ(samples[0].weight, kPeriod);
  EXPECT_EQ(a.throttledNs(), 1'000u);
  EXPECT_EQ(a.weightedNs(), 0u);
}

TEST(ThrottleAccount, ACompactionMovesTheThrottledSampleDownOrDropsIt) {
  // strobe agent drops old samples while throttles are open.
  ThrottleAccount a;
  std::vector<model::Sample> samples;
  samples.push_back(sampleOf(7, 0));
  a.onSample(samples, samples.back().time_ns);
  a.onThrottle(41, 8, 900);
  samples.push_back(sampleOf(8, 1'000));  // index 1: the throttling sample of 41
  a.onSample(samples, samples.back().time_ns);
  samples.push_back(sampleOf(7, 2'000));
  a.onSample(samples, samples.back().time_ns);
  a.onThrottle(40, 7, 3'500);
  samples.push_back(sampleOf(7, 4'000));  // index 3: that of 40
  a.onSample(samples, samples.back().time_ns);
  // A cut-off at 1'500: 41's sample is gone, 40's moves from 3 to 1.
  std::erase_if(samples, [](const model::Sample& s) { return s.time_ns < 1'500; });
  a.afterCompaction(2, samples);
  a.onUnthrottle(41, 1'900, samples);
  a.onUnthrottle(40, 5'000, samples);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].weight, kPeriod);
  EXPECT_EQ(samples[1].weight, kPeriod + 1'500);
  EXPECT_EQ(a.throttledNs(), 2'500u);
  EXPECT_EQ(a.weightedNs(), 1'500u);
}

}  // namespace
}  // namespace strobe::record
