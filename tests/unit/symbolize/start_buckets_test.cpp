// StartBuckets (unit_index.hpp) must answer exactly as std::upper_bound
// over the same sorted starts: dense tables, sparse ones (a sequence at
// address 0 next to code at 0x400000, as discarded functions leave), runs
// of equal starts, and addresses before, between, on and past the starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "symbolize/unit_index.hpp"

namespace strobe::symbolize {
namespace {

void expectSameAsUpperBound(std::vector<uint64_t> starts, std::mt19937_64& rng) {
  std::sort(starts.begin(), starts.end());
  StartBuckets b;
  b.build(starts);
  std::vector<uint64_t> probes = {0, UINT64_MAX, starts.front(), starts.back()};
  if (starts.front() > 0) probes.push_back(starts.front() - 1);
  for (uint64_t s : starts) {
    probes.push_back(s);
    probes.push_back(s + 1);
    if (s > 0) probes.push_back(s - 1);
  }
  std::uniform_int_distribution<uint64_t> any(starts.front(), starts.back() + 64);
  for (int i = 0; i < 2000; ++i) probes.push_back(any(rng));
  for (uint64_t pc : probes) {
    auto want =
        static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), pc) - starts.begin());
    ASSERT_EQ(b.upperBound(starts, pc), want) << "pc " << pc << " of " << starts.size();
  }
}

TEST(StartBucketsTest, AnswersAsUpperBound) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> step(1, 40);
  for (size_t n : {1, 5, 15, 16, 17, 100, 5000}) {
    std::vector<uint64_t> dense;
    uint64_t at = 0x401000;
    for (size_t i = 0; i < n; ++i) dense.push_back(at += step(rng));
    expectSameAsUpperBound(dense, rng);

    std::vector<uint64_t> sparse = dense;
    sparse.push_back(0);
    sparse.push_back(8);
    sparse.push_back(UINT64_MAX - 16);
    expectSameAsUpperBound(sparse, rng);

    std::vector<uint64_t> repeated = dense;
    repeated.insert(repeated.end(), dense.begin(), dense.begin() + static_cast<ptrdiff_t>(n / 2));
    expectSameAsUpperBound(repeated, rng);
  }
}

}  // namespace
}  // namespace strobe::symbolize
