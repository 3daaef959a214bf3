// Compaction of a long-running Profile (model/compact.hpp): old samples go,
// with the stacks only they used; stacks the caller still holds stay; ids
// are renumbered consistently and new stacks intern after it as before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/compact.hpp"

namespace strobe::model {
namespace {

// The frames of a stack, root first, as location ids.
std::vector<LocationId> framesOf(const Profile& p, StackId leaf) {
  std::vector<LocationId> out;
  p.forEachFrame(leaf, [&](LocationId l) { out.insert(out.begin(), l); });
  return out;
}

struct Built {
  Profile p;
  LocationId main_ = 0, a = 0, b = 0, c = 0;
  StackId main_a = 0, main_b = 0, main_b_c = 0;
};

Built build() {
  Built x;
  Profile& p = x.p;
  ModuleId m = p.internModule("/bin/app", "");
  x.main_ = p.internLocation(m, 0x10, 0x1010);
  x.a = p.internLocation(m, 0x20, 0x1020);
  x.b = p.internLocation(m, 0x30, 0x1030);
  x.c = p.internLocation(m, 0x40, 0x1040);
  StackId root = p.internStack(kNone, x.main_);
  x.main_a = p.internStack(root, x.a);
  x.main_b = p.internStack(root, x.b);
  x.main_b_c = p.internStack(x.main_b, x.c);
  p.addSample(Sample{.time_ns = 100, .tid = 1, .stack = x.main_a, .weight = 10});
  p.addSample(Sample{.time_ns = 200, .tid = 1, .stack = x.main_b_c, .weight = 10});
  p.addSample(Sample{.time_ns = 300, .tid = 2, .stack = x.main_a, .weight = 10});
  return x;
}

TEST(CompactTest, DropsOldSamplesAndTheStacksOnlyTheyUsed) {
  Built x = build();
  Compaction c = compactProfile(x.p, 250, {});
  ASSERT_EQ(x.p.samples().size(), 1u);
  EXPECT_EQ(c.samples_dropped, 2u);
  // main and main->a remain; main->b and main->b->c went.
  EXPECT_EQ(x.p.stacks().size(), 2u);
  EXPECT_EQ(c.stacks_dropped, 2u);
  EXPECT_EQ(c.stack_map[x.main_b], kNone);
  EXPECT_EQ(c.stack_map[x.main_b_c], kNone);
  const Sample& s = x.p.samples()[0];
  EXPECT_EQ(s.time_ns, 300u);
  EXPECT_EQ(s.stack, c.stack_map[x.main_a]);
  EXPECT_EQ(framesOf(x.p, s.stack), (std::vector<LocationId>{x.main_, x.a}));
  // Locations and modules stay (a symbolizer's work on them is kept).
  EXPECT_EQ(x.p.locations().size(), 4u);
  EXPECT_EQ(x.p.modules().size(), 1u);
}

TEST(CompactTest, KeepsLiveStacksAndTheirParents) {
  Built x = build();
  Compaction c = compactProfile(x.p, 1000, {x.main_b_c});
  EXPECT_TRUE(x.p.samples().empty());
  ASSERT_NE(c.stack_map[x.main_b_c], kNone);
  EXPECT_EQ(framesOf(x.p, c.stack_map[x.main_b_c]), (std::vector<LocationId>{x.main_, x.b, x.c}));
  EXPECT_EQ(c.stack_map[x.main_a], kNone);
  EXPECT_EQ(x.p.stacks().size(), 3u);
}

TEST(CompactTest, InterningAfterCompactionFindsTheKeptNodes) {
  Built x = build();
  Compaction c = compactProfile(x.p, 250, {});
  const StackId root = c.stack_map[0];
  ASSERT_NE(root, kNone);
  // The same path interns to the same (renumbered) node, a new one grows.
  EXPECT_EQ(x.p.internStack(root, x.a), c.stack_map[x.main_a]);
  const size_t n = x.p.stacks().size();
  StackId again_b = x.p.internStack(root, x.b);
  EXPECT_EQ(again_b, n);
  EXPECT_EQ(x.p.internStack(root, x.b), again_b);
}

TEST(CompactTest, EverythingDroppedLeavesAWorkingProfile) {
  Built x = build();
  compactProfile(x.p, UINT64_MAX, {});
  EXPECT_TRUE(x.p.samples().empty());
  EXPECT_TRUE(x.p.stacks().empty());
  StackId s = x.p.internStack(kNone, x.main_);
  EXPECT_EQ(s, 0u);
  EXPECT_EQ(x.p.internStack(kNone, x.main_), 0u);
}

}  // namespace
}  // namespace strobe::model
