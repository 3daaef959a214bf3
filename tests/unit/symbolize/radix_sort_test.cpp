// radixSort against std::stable_sort: the same order, equal keys kept in
// input order, for keys spanning one pass, several passes and all 64 bits,
// with many duplicates, and below the size where it hands over to
// std::stable_sort.
#include "symbolize/radix_sort.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace strobe::symbolize {
namespace {

// `n` indexes into random keys of `bits` bits above `base`, sorted both ways.
void expectSameAsStableSort(size_t n, unsigned bits, uint64_t base) {
  std::mt19937_64 rng(n * 131 + bits);
  std::vector<uint64_t> keys(n);
  for (uint64_t& k : keys) k = base + (bits == 64 ? rng() : rng() % (uint64_t{1} << bits));
  std::vector<uint32_t> want(n);
  for (uint32_t i = 0; i < n; ++i) want[i] = i;
  std::vector<uint32_t> got = want;
  std::stable_sort(want.begin(), want.end(),
                   [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> scratch;
  radixSort(got, scratch, [&](uint32_t i) { return keys[i]; });
  EXPECT_EQ(got, want) << n << " keys of " << bits << " bits above " << base;

  std::vector<uint64_t> values = keys;
  std::vector<uint64_t> value_scratch;
  radixSort(values, value_scratch, [](uint64_t v) { return v; });
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(values, keys) << n << " values of " << bits << " bits";
}

TEST(RadixSortTest, SortsAsStableSortDoes) {
  for (size_t n : {0, 1, 2, 255, 256, 257, 5000, 100000}) {
    expectSameAsStableSort(n, 4, 0x400000);  // many equal keys: stability shows
    expectSameAsStableSort(n, 11, 0);        // one pass
    expectSameAsStableSort(n, 22, 0x7f0000000000);
    expectSameAsStableSort(n, 40, 1);
    expectSameAsStableSort(n, 64, 0);  // six passes, keys up to 2^64 - 1
  }
}

}  // namespace
}  // namespace strobe::symbolize
