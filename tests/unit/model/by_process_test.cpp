// --by process: one row per process, named after its main thread.
#include <gtest/gtest.h>

#include "model/aggregate.hpp"
#include "sample_profile.hpp"

namespace strobe::model {
namespace {

TEST(AggregateByProcess, OneRowPerPidNamedByItsMainThread) {
  Profile p = test::sampleProfile();  // threads 100 (app) and 101 (worker-1) of pid 100
  p.setThread({201, 200, "child-worker"});
  p.setThread({200, 200, "child"});
  p.addSample({1, 201, 0, kNone, 7'000'000});
  p.addSample({2, 300, 0, kNone, 1'000'000});  // a thread never named: its own pid
  auto rows = topTable(p, GroupBy::kProcess);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].function, "app (100)");
  EXPECT_EQ(rows[0].self, 100'000'000u);
  EXPECT_EQ(rows[0].total, rows[0].self);
  EXPECT_EQ(rows[0].self_samples, 100u);
  EXPECT_EQ(rows[1].function, "child (200)");
  EXPECT_EQ(rows[1].self, 7'000'000u);
  EXPECT_EQ(rows[2].function, "process (300)");
}

TEST(EventUnit, ClocksAreNanosecondsOthersCount) {
  EXPECT_EQ(eventUnit("cpu-clock"), "ns");
  EXPECT_EQ(eventUnit(""), "ns");
  EXPECT_TRUE(isTimeEvent("task-clock"));
  EXPECT_EQ(eventUnit("page-faults"), "faults");
  EXPECT_EQ(eventUnit("context-switches"), "switches");
  EXPECT_EQ(eventUnit("cycles"), "cycles");
  EXPECT_EQ(eventUnit("branch-misses"), "misses");
  EXPECT_EQ(eventUnit("4:1234"), "events");
}

}  // namespace
}  // namespace strobe::model
