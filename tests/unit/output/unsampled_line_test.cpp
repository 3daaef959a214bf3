// The line reports give for CPU the events counted and no sample covers.
#include <gtest/gtest.h>

#include "output/unsampled_threads.hpp"

namespace strobe::output {
namespace {

model::Meta cpuClockMeta() {
  model::Meta m;
  m.event = "cpu-clock";
  m.frequency = 99;
  m.kernel_time = 1;
  return m;
}

TEST(UnsampledLine, SilentWhileNoThreadWentUnsampledAndTheGapIsSmall) {
  model::Meta m = cpuClockMeta();
  m.unsampled_count = 10'000'000;                  // 10 ms
  EXPECT_EQ(unsampledLine(m, 1'000'000'000), "");  // of 1 s: 1%
  EXPECT_NE(unsampledLine(m, 999'000'000), "");    // just over 1%
}

TEST(UnsampledLine, NamesTheThreadsAndTheWholeGap) {
  model::Meta m = cpuClockMeta();
  m.unsampled_threads = 2000;
  m.unsampled_count = 1'520'000'000;
  EXPECT_EQ(unsampledLine(m, 5'000'000'000),
            "2000 threads exited without a sample: each ran less than one sampling period "
            "(10.1 ms at 99 Hz); 1.52 s of CPU that the kernel counted has no sample in all "
            "(theirs, and the last part of a period of every other thread)");
  m.unsampled_threads = 1;
  m.kernel_time = 0;
  EXPECT_EQ(unsampledLine(m, 5'000'000'000),
            "1 thread exited without a sample: it ran less than one sampling period (10.1 ms at "
            "99 Hz), or only in the kernel (not sampled here); 1.52 s of CPU that the kernel "
            "counted has no sample in all (theirs, and the last part of a period of every other "
            "thread)");
}

TEST(UnsampledLine, AGapWithoutUnsampledThreadsIsStillSaid) {
  // What a stalled sampling event leaves: every thread sampled, yet much of
  // the CPU the kernel counted without a sample.
  model::Meta m = cpuClockMeta();
  m.unsampled_count = 25'500'000'000;
  EXPECT_EQ(unsampledLine(m, 50'000'000'000),
            "25.50 s of CPU that the kernel counted has no sample (the last part of a sampling "
            "period of each thread)");
  m.event = "page-faults";
  m.sample_period = 10;
  m.unsampled_count = 700;
  EXPECT_EQ(unsampledLine(m, 10'000),
            "700 faults that the kernel counted have no sample (the last part of a sampling "
            "period of each thread)");
}

}  // namespace
}  // namespace strobe::output
