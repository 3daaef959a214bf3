// The guarded frame-pointer walk on synthetic stacks: it follows good
// records and stops on each kind of bad one, with known bounds and with the
// process_vm_readv probe.
#include "inproc/fp_walk.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace strobe::inproc {
namespace {

// A fake stack of 64 words; frame records at word indexes.
struct FakeStack {
  alignas(16) uint64_t w[64] = {};
  uint64_t at(int i) { return reinterpret_cast<uint64_t>(&w[i]); }
  uint64_t hi() { return at(64); }
  void frame(int i, uint64_t next_fp, uint64_t ret) {
    w[i] = next_fp;
    w[i + 1] = ret;
  }
};

class FpWalkTest : public ::testing::TestWithParam<bool> {
 protected:
  // Known bounds, or 0 (probed reads).
  uint64_t bound(FakeStack& s) { return GetParam() ? s.hi() : 0; }
};

TEST_P(FpWalkTest, FollowsRecordsUntilAZeroReturnAddress) {
  FakeStack s;
  s.frame(4, s.at(10), 0x1111);
  s.frame(10, s.at(20), 0x2222);
  s.frame(20, s.at(30), 0x3333);
  s.frame(30, 0, 0);
  uint64_t out[16];
  Regs r{0x9999, s.at(4), s.at(0)};
  uint32_t n = walkFramePointers(r, bound(s), getpid(), out, 16);
  ASSERT_EQ(n, 4u);
  EXPECT_EQ(out[0], 0x9999u);
  EXPECT_EQ(out[1], 0x1111u);
  EXPECT_EQ(out[2], 0x2222u);
  EXPECT_EQ(out[3], 0x3333u);
}

TEST_P(FpWalkTest, StopsOnNonIncreasingOrMisalignedFramePointers) {
  FakeStack s;
  s.frame(10, s.at(4), 0x1111);  // points back down the stack
  uint64_t out[16];
  Regs r{0x9999, s.at(10), s.at(0)};
  EXPECT_EQ(walkFramePointers(r, bound(s), getpid(), out, 16), 2u);

  s.frame(10, s.at(20) + 3, 0x1111);  // misaligned next frame
  EXPECT_EQ(walkFramePointers(r, bound(s), getpid(), out, 16), 2u);

  r.fp = s.at(10) + 4;  // misaligned first frame
  EXPECT_EQ(walkFramePointers(r, bound(s), getpid(), out, 16), 1u);

  r.fp = s.at(0) - 64;  // below the stack pointer
  EXPECT_EQ(walkFramePointers(r, bound(s), getpid(), out, 16), 1u);
}

TEST_P(FpWalkTest, StopsAtMaxDepth) {
  FakeStack s;
  for (int i = 0; i < 60; i += 2) s.frame(i, s.at(i + 2), 0x1000 + i);
  uint64_t out[5];
  Regs r{0x9999, s.at(0), s.at(0)};
  EXPECT_EQ(walkFramePointers(r, bound(s), getpid(), out, 5), 5u);
}

INSTANTIATE_TEST_SUITE_P(Bounds, FpWalkTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Known" : "Probed"; });

TEST(FpWalkProbeTest, StopsAtUnreadableMemoryWithoutFaulting) {
  long page = sysconf(_SC_PAGESIZE);
  auto* mem = static_cast<uint8_t*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(mem + page, page, PROT_NONE), 0);
  auto* words = reinterpret_cast<uint64_t*>(mem + page - 32);
  words[0] = reinterpret_cast<uint64_t>(mem + page + 64);  // next frame: unreadable
  words[1] = 0x1111;
  uint64_t out[8];
  Regs r{0x9999, reinterpret_cast<uint64_t>(words), reinterpret_cast<uint64_t>(mem)};
  EXPECT_EQ(walkFramePointers(r, 0, getpid(), out, 8), 2u);
  munmap(mem, 2 * page);
}

}  // namespace
}  // namespace strobe::inproc
