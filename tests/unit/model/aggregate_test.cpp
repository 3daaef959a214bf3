#include "model/aggregate.hpp"

#include <gtest/gtest.h>

#include "sample_profile.hpp"

namespace strobe::model {
namespace {

const TopRow& row(const std::vector<TopRow>& rows, const std::string& fn, uint32_t line = 0) {
  for (const auto& r : rows) {
    if (r.function == fn && (line == 0 || r.line == line)) return r;
  }
  static TopRow none;
  ADD_FAILURE() << "no row " << fn;
  return none;
}

TEST(Aggregate, TotalsCountSamplesWeightAndThreads) {
  Profile p = test::sampleProfile();
  Totals t = totals(p);
  EXPECT_EQ(t.samples, 100u);
  EXPECT_EQ(t.weight, 100'000'000u);
  EXPECT_EQ(t.threads, 2u);
}

TEST(Aggregate, ByFunctionSelfAndTotal) {
  Profile p = test::sampleProfile();
  auto rows = topTable(p, GroupBy::kFunction);
  const uint64_t ms = 1'000'000;
  EXPECT_EQ(rows.front().function, "app::hot_loop()");
  EXPECT_EQ(row(rows, "app::hot_loop()").self, 60 * ms);
  EXPECT_EQ(row(rows, "app::hot_loop()").line, 40u) << "function rows carry the start line";
  // helper is inlined into compute: the inline frame takes self, compute total.
  EXPECT_EQ(row(rows, "app::helper(int)").self, 25 * ms);
  EXPECT_EQ(row(rows, "app::compute(int)").self, 4 * ms);
  EXPECT_EQ(row(rows, "app::compute(int)").total, 99 * ms);
  EXPECT_EQ(row(rows, "main").total, 99 * ms);
  EXPECT_EQ(row(rows, "main").self, 0u);
  // Unresolved frames keep a name: module+offset, or [unknown]+address.
  EXPECT_EQ(row(rows, "libc.so.6+0x9a0f0").self, 10 * ms);
  EXPECT_EQ(row(rows, "[unknown]+0xdeadbeef").self, 1 * ms);
}

TEST(Aggregate, ByLineSplitsAFunctionsLines) {
  Profile p = test::sampleProfile();
  auto rows = topTable(p, GroupBy::kLine);
  const uint64_t ms = 1'000'000;
  EXPECT_EQ(row(rows, "app::hot_loop()", 42).self, 40 * ms);
  EXPECT_EQ(row(rows, "app::hot_loop()", 43).self, 20 * ms);
  EXPECT_EQ(row(rows, "app::compute(int)", 27).total, 25 * ms);
  EXPECT_EQ(row(rows, "app::compute(int)", 25).total, 74 * ms);
}

TEST(Aggregate, RecursionCountsOnceInTotal) {
  Profile p;
  ModuleId m = p.internModule("/bin/x", "");
  FunctionId f = p.internFunction("rec", "rec", "x.c", 1);
  LocationId l = p.internLocation(m, 0x10, 0x10);
  p.mutableLocations()[l].lines = {{f, 2}};
  StackId s = kNone;
  for (int i = 0; i < 5; ++i) s = p.internStack(s, l);
  p.addSample({0, 1, 0, s, 7});
  auto rows = topTable(p, GroupBy::kFunction);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].self, 7u);
  EXPECT_EQ(rows[0].total, 7u);
}

TEST(Profile, InterningIsStable) {
  Profile p;
  EXPECT_EQ(p.internString(""), kEmptyString);
  EXPECT_EQ(p.internString("a"), p.internString("a"));
  ModuleId m = p.internModule("/lib/a.so", "ff");
  EXPECT_EQ(m, p.internModule("/lib/a.so", "ff"));
  EXPECT_NE(m, p.internModule("/lib/a.so", "ee"));
  EXPECT_EQ(p.internLocation(m, 5, 100), p.internLocation(m, 5, 200)) << "same module offset";
  EXPECT_NE(p.internLocation(kNone, 5, 100), p.internLocation(kNone, 5, 200));
  StackId a = p.internStack(kNone, 0);
  EXPECT_EQ(p.internStack(a, 1), p.internStack(a, 1));
  EXPECT_EQ(p.moduleName(m), "a.so");
  EXPECT_EQ(p.moduleName(kNone), "[unknown]");
}

TEST(Profile, StackInterningSurvivesGrowthAndCopies) {
  Profile p;
  p.reserveStacks(10);  // a hint smaller than what follows
  std::vector<StackId> ids;
  StackId parent = kNone;
  for (uint32_t i = 0; i < 5000; ++i) {
    ids.push_back(p.internStack(i % 3 == 0 ? kNone : parent, i % 97));
    ASSERT_LT(ids.back(), p.stacks().size());
    parent = ids.back();
  }
  // Every 291 = 3 * 97 nodes the walk repeats itself, root included.
  ASSERT_EQ(p.stacks().size(), 291u);
  for (uint32_t i = 0; i < 5000; ++i) ASSERT_EQ(ids[i], ids[i % 291]) << i;
  Profile copy = p;
  parent = kNone;
  for (uint32_t i = 0; i < 5000; ++i) {
    StackId again = copy.internStack(i % 3 == 0 ? kNone : parent, i % 97);
    ASSERT_EQ(again, ids[i]) << i;
    parent = again;
  }
  EXPECT_EQ(copy.stacks().size(), 291u);
  EXPECT_EQ(copy.internStack(ids[5], 96), 291u) << "a new node after the copy";
}

}  // namespace
}  // namespace strobe::model
