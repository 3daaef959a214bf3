#include "inproc/sample_ring.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace strobe::inproc {
namespace {

TEST(SampleRingTest, KeepsSamplesInOrderAndDropsWhenFull) {
  SampleRing ring(4, 3);
  EXPECT_EQ(ring.maxDepth(), 3u);
  for (uint64_t i = 0; i < 6; ++i) {
    uint64_t* f = ring.beginWrite();
    if (i >= 4) {
      EXPECT_EQ(f, nullptr);
      continue;
    }
    ASSERT_NE(f, nullptr);
    f[0] = 100 + i;
    f[1] = 200 + i;
    ring.commit(i, 10 * i, 2);
  }
  EXPECT_EQ(ring.dropped(), 2u);
  std::vector<uint64_t> times;
  size_t n = ring.drain([&](uint64_t t, uint64_t w, const uint64_t* f, uint32_t depth) {
    times.push_back(t);
    EXPECT_EQ(w, 10 * t);
    EXPECT_EQ(depth, 2u);
    EXPECT_EQ(f[0], 100 + t);
    EXPECT_EQ(f[1], 200 + t);
  });
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(times, (std::vector<uint64_t>{0, 1, 2, 3}));
  // Space is free again after the drain.
  ASSERT_NE(ring.beginWrite(), nullptr);
  ring.commit(7, 0, 0);
  EXPECT_EQ(ring.drain([](uint64_t, uint64_t, const uint64_t*, uint32_t) {}), 1u);
}

TEST(SampleRingTest, RoundsCapacityUpToAPowerOfTwo) {
  SampleRing ring(3, 1);
  int written = 0;
  while (ring.beginWrite() != nullptr) {
    ring.commit(0, 0, 0);
    ++written;
  }
  EXPECT_EQ(written, 4);
}

}  // namespace
}  // namespace strobe::inproc
