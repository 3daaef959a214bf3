// OffsetMap against std::unordered_map: the same answers for keys found and
// not found while the map grows from empty, for keys with a common stride
// (as DIE offsets have) and random ones; key 0 is never stored.
#include "symbolize/offset_map.hpp"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace strobe::symbolize {
namespace {

struct Names {
  uint64_t a = 0;
  const char* b = nullptr;
};

void expectSameAsUnorderedMap(uint64_t stride, bool random) {
  std::mt19937_64 rng(stride);
  OffsetMap<Names> map;
  std::unordered_map<uint64_t, uint64_t> want;
  EXPECT_EQ(map.find(12), nullptr);
  for (uint64_t i = 1; i <= 20000; ++i) {
    const uint64_t key = random ? rng() | 1 : i * stride;
    map.insert(key, Names{key * 3, nullptr});
    want[key] = key * 3;
    if (i % 97 == 0) {  // look back at keys stored and past ones never stored
      for (const auto& [k, v] : want) {
        const Names* got = map.find(k);
        ASSERT_NE(got, nullptr) << k;
        EXPECT_EQ(got->a, v);
        if (k % 11 == 0) break;
      }
      EXPECT_EQ(map.find(random ? 2 : (20001 + i) * stride), nullptr);
    }
  }
  EXPECT_EQ(map.size(), want.size());
  for (const auto& [k, v] : want) {
    const Names* got = map.find(k);
    ASSERT_NE(got, nullptr) << k;
    EXPECT_EQ(got->a, v);
  }
}

TEST(OffsetMapTest, FindsWhatUnorderedMapFinds) {
  expectSameAsUnorderedMap(1, false);
  expectSameAsUnorderedMap(0x2c, false);
  expectSameAsUnorderedMap(4096, false);
  expectSameAsUnorderedMap(7, true);
}

TEST(OffsetMapTest, InsertReplacesAndZeroIsNoKey) {
  OffsetMap<Names> map;
  map.insert(0, Names{1, nullptr});
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.find(0), nullptr);
  map.insert(40, Names{1, "one"});
  map.insert(40, Names{2, "two"});
  ASSERT_NE(map.find(40), nullptr);
  EXPECT_EQ(map.find(40)->a, 2u);
  EXPECT_STREQ(map.find(40)->b, "two");
  EXPECT_EQ(map.size(), 1u);
  map.reserve(1000);
  ASSERT_NE(map.find(40), nullptr);
  EXPECT_EQ(map.find(40)->a, 2u);
}

}  // namespace
}  // namespace strobe::symbolize
