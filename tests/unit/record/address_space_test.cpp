#include "record/address_space.hpp"

#include <gtest/gtest.h>

namespace strobe::record {
namespace {

TEST(AddressSpace, FindsTheMappingAndNothingOutside) {
  AddressSpace as;
  as.map({0x1000, 0x2000, 0x0, 1});
  as.map({0x3000, 0x5000, 0x4000, 2});
  ASSERT_NE(as.find(0x1000), nullptr);
  EXPECT_EQ(as.find(0x1fff)->module, 1u);
  EXPECT_EQ(as.find(0x2000), nullptr);
  EXPECT_EQ(as.find(0xfff), nullptr);
  EXPECT_EQ(as.find(0x4abc)->module, 2u);
  EXPECT_EQ(as.find(0x4abc)->pgoff, 0x4000u);
}

TEST(AddressSpace, NewMappingSplitsWhatItOverlaps) {
  AddressSpace as;
  as.map({0x1000, 0x9000, 0x100000, 1});
  as.map({0x3000, 0x4000, 0x0, 2});  // punches a hole, as mmap(MAP_FIXED) does
  ASSERT_EQ(as.size(), 3u);
  EXPECT_EQ(as.find(0x2fff)->module, 1u);
  EXPECT_EQ(as.find(0x3000)->module, 2u);
  const Mapping* right = as.find(0x4000);
  ASSERT_NE(right, nullptr);
  EXPECT_EQ(right->module, 1u);
  EXPECT_EQ(right->start, 0x4000u);
  // The right part keeps its file offsets: 0x4000 was at pgoff + 0x3000.
  EXPECT_EQ(right->pgoff, 0x103000u);
}

TEST(AddressSpace, ReplacingCoversSeveralAndClearForgets) {
  AddressSpace as;
  as.map({0x1000, 0x2000, 0, 1});
  as.map({0x2000, 0x3000, 0, 2});
  as.map({0x0800, 0x3800, 0, 3});
  ASSERT_EQ(as.size(), 1u);
  EXPECT_EQ(as.find(0x2500)->module, 3u);
  as.clear();
  EXPECT_EQ(as.find(0x2500), nullptr);
}

}  // namespace
}  // namespace strobe::record
