// mergeStacks on hand-made stacks: Python frames in place of the native
// eval-loop frames that run them, native frames between them kept.
#include <gtest/gtest.h>

#include <vector>

#include "cpython/stack_merge.hpp"

namespace strobe::cpython {
namespace {

constexpr uint64_t kEval = 0xe000;  // the eval loop's code: [0xe000, 0xf000)
bool isEval(uint64_t a) {
  return a >= kEval && a < kEval + 0x1000;
}

MergedFrame native(uint64_t a) {
  return {false, a};
}
MergedFrame py(uint64_t i) {
  return {true, i};
}

std::vector<MergedFrame> merge(const std::vector<uint64_t>& n, const std::vector<RuntimeFrame>& p) {
  std::vector<MergedFrame> out{native(1)};  // cleared first
  mergeStacks(n.data(), n.size(), isEval, p.data(), p.size(), out);
  return out;
}

TEST(CpythonStackMerge, PythonCallsC) {
  // deflate <- zlib_compress <- eval(compress_work <- main <- <module>) <- main() <- _start
  const std::vector<uint64_t> n = {0x10, 0x20, kEval + 5, 0x30, 0x40};
  const std::vector<RuntimeFrame> p = {{1, 0, 0}, {2, 0, 0}, {3, 0, kFrameEntry}};
  EXPECT_EQ(merge(n, p), (std::vector<MergedFrame>{native(0x10), native(0x20), py(0), py(1), py(2),
                                                   native(0x30), native(0x40)}));
}

TEST(CpythonStackMerge, CallsBackIntoPython) {
  // eval(inner) <- map_next <- eval(middle <- outer <- <module>) <- main
  const std::vector<uint64_t> n = {kEval + 1, 0x50, kEval + 9, 0x60};
  const std::vector<RuntimeFrame> p = {
      {1, 0, kFrameEntry}, {2, 0, 0}, {3, 0, 0}, {4, 0, kFrameEntry}};
  EXPECT_EQ(merge(n, p),
            (std::vector<MergedFrame>{py(0), native(0x50), py(1), py(2), py(3), native(0x60)}));
}

TEST(CpythonStackMerge, NativeStackCutShort) {
  // The native unwind stopped inside the first activation: the rest go at the root.
  const std::vector<uint64_t> n = {0x10, kEval};
  const std::vector<RuntimeFrame> p = {{1, 0, kFrameEntry}, {2, 0, kFrameEntry}};
  EXPECT_EQ(merge(n, p), (std::vector<MergedFrame>{native(0x10), py(0), py(1)}));
}

TEST(CpythonStackMerge, MoreEvalFramesThanActivations) {
  const std::vector<uint64_t> n = {kEval, 0x10, kEval + 2};
  const std::vector<RuntimeFrame> p = {{1, 0, kFrameEntry}};
  EXPECT_EQ(merge(n, p), (std::vector<MergedFrame>{py(0), native(0x10), native(kEval + 2)}));
}

TEST(CpythonStackMerge, NoPythonFrames) {
  const std::vector<uint64_t> n = {kEval, 0x10};
  EXPECT_EQ(merge(n, {}), (std::vector<MergedFrame>{native(kEval), native(0x10)}));
}

}  // namespace
}  // namespace strobe::cpython
