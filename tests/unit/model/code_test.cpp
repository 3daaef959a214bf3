// The kept code of sampled functions (model/code.hpp) and the --by address
// table (model/address_table.hpp) over the shared sample profile.
#include <gtest/gtest.h>

#include <string>

#include "model/address_table.hpp"
#include "model/code.hpp"
#include "sample_profile.hpp"

namespace strobe::model {
namespace {

// sampleProfile() with the code range of app::hot_loop() kept:
// [0x12f0, 0x1330) of the app module.
Profile withHotCode() {
  Profile p = test::sampleProfile();
  FunctionCode c;
  c.module = 0;
  c.offset = 0x12f0;
  c.address = 0x12f0;
  c.size = 0x40;
  for (FunctionId f = 0; f < p.functions().size(); ++f) {
    if (p.str(p.functions()[f].name) == "app::hot_loop()") c.function = f;
  }
  p.addCode(c);
  return p;
}

const TopRow* addressRow(const std::vector<TopRow>& rows, const std::string& address) {
  for (const TopRow& r : rows) {
    if (r.address == address) return &r;
  }
  return nullptr;
}

TEST(CodeTest, ChecksumIsFnv1a64) {
  // The published FNV-1a test vectors ("" and "a"); 0 is reserved for "no bytes".
  EXPECT_EQ(codeChecksum({}), 0xcbf29ce484222325ULL);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(codeChecksum(a), 0xaf63dc4c8601ec8cULL);
  const uint8_t b[] = {'b'};
  EXPECT_NE(codeChecksum(a), codeChecksum(b));
}

TEST(CodeTest, IndexFindsTheRangeHoldingAnOffset) {
  Profile p = withHotCode();
  FunctionCode inner;  // nested inside hot_loop's range, as aliases can be
  inner.module = 0;
  inner.offset = 0x1300;
  inner.size = 0x8;
  p.addCode(inner);
  FunctionCode other;  // another module at the same offsets
  other.module = 1;
  other.offset = 0x12f0;
  other.size = 0x100;
  p.addCode(other);
  CodeIndex index(p);
  EXPECT_EQ(index.find(0, 0x12f0), &p.code()[0]);
  EXPECT_EQ(index.find(0, 0x1304), &p.code()[1]);
  EXPECT_EQ(index.find(0, 0x1310), &p.code()[0]);  // past the nested one: the outer holds it
  EXPECT_EQ(index.find(0, 0x132f), &p.code()[0]);
  EXPECT_EQ(index.find(0, 0x1330), nullptr);  // the end is exclusive
  EXPECT_EQ(index.find(0, 0x12ef), nullptr);
  EXPECT_EQ(index.find(1, 0x1300), &p.code()[2]);
  EXPECT_EQ(index.find(2, 0x1300), nullptr);
  EXPECT_EQ(index.find(kNone, 0x1300), nullptr);
}

TEST(CodeTest, LeafWeightsAreSelfPerLocation) {
  Profile p = test::sampleProfile();
  std::vector<LeafWeight> w = leafWeights(p);
  ASSERT_EQ(w.size(), p.locations().size());
  uint64_t samples = 0;
  for (const LeafWeight& x : w) samples += x.samples;
  EXPECT_EQ(samples, p.samples().size());
  EXPECT_EQ(w[0].samples, 0u);   // main is never a leaf
  EXPECT_EQ(w[2].samples, 40u);  // hot_loop at 0x1300
  EXPECT_EQ(w[2].weight, 40'000'000u);
}

TEST(AddressTableTest, BucketsMustBePowersOfTwoUpToAPage) {
  for (uint64_t b : {1ULL, 2ULL, 16ULL, 64ULL, 4096ULL}) EXPECT_TRUE(validBucket(b)) << b;
  for (uint64_t b : {0ULL, 3ULL, 12ULL, 8192ULL, 1ULL << 40}) EXPECT_FALSE(validBucket(b)) << b;
  EXPECT_EQ(parseGroupBy("address"), GroupBy::kAddress);
  EXPECT_EQ(groupByName(GroupBy::kAddress), "address");
}

TEST(AddressTableTest, OneRowPerSampledAddress) {
  Profile p = withHotCode();
  std::vector<TopRow> rows = addressTable(p, p.samples(), 1);
  ASSERT_EQ(rows.size(), 7u);  // main's address too (a caller, total only)
  EXPECT_EQ(rows[0].address, "app+0x1300");
  EXPECT_EQ(rows[0].function, "app::hot_loop()+0x10");
  EXPECT_EQ(rows[0].self_samples, 40u);
  EXPECT_EQ(rows[0].total_samples, 40u);
  EXPECT_EQ(rows[0].file, "/src/app/compute.cpp");
  EXPECT_EQ(rows[0].line, 42u);
  EXPECT_EQ(rows[0].module, "app");
  EXPECT_EQ(rows[1].address, "app+0x1400");
  // No kept range: the outermost function alone; the innermost line.
  EXPECT_EQ(rows[1].function, "app::compute(int)");
  EXPECT_EQ(rows[1].file, "/src/app/helper.hpp");
  EXPECT_EQ(rows[1].line, 7u);
  EXPECT_EQ(rows[2].address, "app+0x1310");
  EXPECT_EQ(rows[2].function, "app::hot_loop()+0x20");
  EXPECT_EQ(rows[3].address, "libc.so.6+0x9a0f0");
  EXPECT_EQ(rows[3].function, "libc.so.6+0x9a0f0");  // unsymbolized: named by its address
  EXPECT_EQ(rows[3].self_samples, 10u);
  const TopRow* compute = addressRow(rows, "app+0x1200");
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->self_samples, 4u);
  EXPECT_EQ(compute->total_samples, 40u + 20 + 10 + 4);
  const TopRow* nowhere = addressRow(rows, "[unknown]+0xdeadbeef");
  ASSERT_NE(nowhere, nullptr);
  EXPECT_EQ(nowhere->self_samples, 1u);
  const TopRow* main_row = addressRow(rows, "app+0x1100");
  ASSERT_NE(main_row, nullptr);
  EXPECT_EQ(main_row->self_samples, 0u);
  EXPECT_EQ(main_row->total_samples, 99u);
  EXPECT_EQ(rows.back().address, "app+0x1100");  // no self weight: last
}

TEST(AddressTableTest, AlignedBucketsMergeAddresses) {
  Profile p = withHotCode();
  std::vector<TopRow> rows = addressTable(p, p.samples(), 32);
  // 0x1300 and 0x1310 share the bucket at 0x1300, named by its hottest address.
  EXPECT_EQ(rows[0].address, "app+0x1300");
  EXPECT_EQ(rows[0].self_samples, 60u);
  EXPECT_EQ(rows[0].function, "app::hot_loop()+0x10");
  EXPECT_EQ(rows[0].line, 42u);
  EXPECT_EQ(addressRow(rows, "app+0x1310"), nullptr);

  // A bucket that starts before the function: the offset of its first byte
  // inside the function.
  rows = addressTable(p, p.samples(), 4096);
  EXPECT_EQ(rows[0].address, "app+0x1000");
  EXPECT_EQ(rows[0].self_samples, 40u + 20 + 25 + 4);
  EXPECT_EQ(rows[0].total_samples, 99u);  // recursion-free: once per sample
  EXPECT_EQ(rows[0].function, "app::hot_loop()+0x0");
}

TEST(AddressTableTest, ThroughTopTableAndFilteredSamples) {
  Profile p = withHotCode();
  std::vector<TopRow> rows = topTable(p, GroupBy::kAddress);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].address, "app+0x1300");
  // Only thread 101's samples.
  std::vector<Sample> mine;
  for (const Sample& s : p.samples()) {
    if (s.tid == 101) mine.push_back(s);
  }
  rows = addressTable(p, mine, 1);
  EXPECT_EQ(rows[0].address, "app+0x1400");
  EXPECT_EQ(rows[0].self_samples, 25u);
  EXPECT_EQ(addressRow(rows, "app+0x1300"), nullptr);
}

TEST(AddressTableTest, KernelAddressesAreTheirOwnOffsets) {
  Profile p;
  ModuleId k = p.internModule("[kernel.kallsyms]", "");
  FunctionId f = p.internFunction("do_syscall_64", "do_syscall_64", "", 0);
  LocationId l = p.internLocation(k, 0xffffffff81001234, 0xffffffff81001234);
  p.mutableLocations()[l].lines = {{f, 0}};
  p.addSample({1, 1, 0, p.internStack(kNone, l), 5});
  FunctionCode c;
  c.function = f;
  c.module = k;
  c.offset = c.address = 0xffffffff81001200;
  c.size = 0x100;
  p.addCode(c);
  std::vector<TopRow> rows = addressTable(p, p.samples(), 16);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].address, "[kernel.kallsyms]+0xffffffff81001230");
  EXPECT_EQ(rows[0].function, "do_syscall_64+0x30");
}

}  // namespace
}  // namespace strobe::model
