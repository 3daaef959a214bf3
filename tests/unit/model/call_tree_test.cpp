#include "model/call_tree.hpp"

#include <gtest/gtest.h>

#include "model/callers.hpp"
#include "model/filter.hpp"
#include "sample_profile.hpp"

namespace strobe::model {
namespace {

const uint64_t ms = 1'000'000;

TEST(CallTree, ChildrenNeverExceedTheirParent) {
  Profile p = test::sampleProfile();
  for (bool fold : {false, true}) {
    for (bool by_thread : {false, true}) {
      CallTree t = CallTree::build(p, {fold, by_thread});
      EXPECT_EQ(t.root().total_weight, 100 * ms);
      for (const CallNode& n : t.nodes()) {
        uint64_t sum = n.self_weight;
        for (uint32_t c : n.children) {
          EXPECT_LE(t.node(c).total_weight, n.total_weight);
          sum += t.node(c).total_weight;
        }
        EXPECT_EQ(sum, n.total_weight);
      }
    }
  }
}

TEST(CallTree, InlinedFramesAreNodesUnlessFolded) {
  Profile p = test::sampleProfile();
  CallTree t = CallTree::build(p, {false, false});
  bool found = false;
  for (uint32_t id = 0; id < t.nodes().size(); ++id) {
    if (t.name(p, id) != "app::helper(int)") continue;
    found = true;
    EXPECT_TRUE(t.node(id).frame.inlined);
    EXPECT_EQ(t.name(p, t.node(id).parent), "app::compute(int)");
    EXPECT_EQ(t.node(id).self_weight, 25 * ms);
  }
  EXPECT_TRUE(found);
  CallTree folded = CallTree::build(p, {true, false});
  for (uint32_t id = 0; id < folded.nodes().size(); ++id) {
    EXPECT_NE(folded.name(p, id), "app::helper(int)");
  }
}

TEST(CallTree, ByThreadRootsAtThreads) {
  Profile p = test::sampleProfile();
  CallTree t = CallTree::build(p, {false, true});
  ASSERT_EQ(t.root().children.size(), 2u);
  EXPECT_EQ(t.name(p, t.root().children[0]), "app (100)");
  EXPECT_EQ(t.node(t.root().children[0]).total_weight, 54 * ms);
  EXPECT_EQ(t.name(p, t.root().children[1]), "worker-1 (101)");
}

TEST(Filter, TimeWindowTidsAndThreadGlobs) {
  Profile p = test::sampleProfile();
  SampleFilter f;
  f.since_ns = 10 * ms;  // samples are at 1 ms, 2 ms, ...
  f.until_ns = 20 * ms;
  EXPECT_EQ(filterSamples(p, f).samples().size(), 10u);
  SampleFilter t;
  t.tids = {101};
  EXPECT_EQ(filterSamples(p, t).samples().size(), 46u);
  SampleFilter g;
  g.threads = {"work*"};
  EXPECT_EQ(filterSamples(p, g).samples().size(), 46u);
  g.threads = {"nomatch"};
  EXPECT_EQ(filterSamples(p, g).samples().size(), 0u);
}

TEST(Callers, SharesOfCallersAndCallees) {
  Profile p = test::sampleProfile();
  auto callers = neighbors(p, "app::hot_loop()", false, false);
  ASSERT_EQ(callers.tables.size(), 1u);
  EXPECT_TRUE(callers.exact);
  const NeighborTable& hot = callers.tables[0];
  EXPECT_EQ(hot.weight, 60 * ms);
  ASSERT_EQ(hot.rows.size(), 1u);
  EXPECT_EQ(hot.rows[0].who.name, "app::compute(int)");
  EXPECT_EQ(hot.rows[0].who.file, "/src/app/compute.cpp");
  EXPECT_EQ(hot.rows[0].who.line, 20u);
  EXPECT_EQ(hot.rows[0].weight, 60 * ms);

  auto callees = neighbors(p, "compute", true, false);  // a substring
  EXPECT_FALSE(callees.exact);
  ASSERT_EQ(callees.tables.size(), 1u);
  EXPECT_EQ(callees.tables[0].function.name, "app::compute(int)");
  EXPECT_EQ(callees.tables[0].weight, 99 * ms);
  uint64_t sum = 0;
  for (const auto& r : callees.tables[0].rows) sum += r.weight;
  EXPECT_EQ(sum, 99 * ms) << "each sample credits one callee";
  EXPECT_EQ(callees.tables[0].rows[0].who.name, "app::hot_loop()");

  EXPECT_TRUE(neighbors(p, "no_such_function", false, false).tables.empty());
}

TEST(Callers, APartOfNamesGivesOneTablePerFunction) {
  Profile p = test::sampleProfile();
  // "app::" is in compute, hot_loop and helper: three tables, each with its
  // own shares (no merged table adding them up).
  auto t = neighbors(p, "app::", true, false);
  EXPECT_FALSE(t.exact);
  ASSERT_EQ(t.tables.size(), 3u);
  EXPECT_EQ(t.tables[0].function.name, "app::compute(int)");  // heaviest first
  for (const NeighborTable& table : t.tables) {
    uint64_t sum = 0;
    for (const auto& r : table.rows) sum += r.weight;
    EXPECT_EQ(sum, table.weight) << table.function.name;
  }
}

}  // namespace
}  // namespace strobe::model
