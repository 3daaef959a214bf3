// stubRule on CPython's perf trampoline templates (3.12.1 and 3.13.0 ship
// the first; a build with frame pointers the second), each rule worked out
// by hand from the instructions' effect on %rsp and %rbp; and the unwinder
// stepping through such a stub with a synthetic stack.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "unwind/stub_rules.hpp"
#include "unwind/unwinder.hpp"

namespace strobe::unwind {
namespace {

constexpr int kStubRip = 16, kStubRsp = 7, kStubRbp = 6;

// sub $8,%rsp; call *%rcx; add $8,%rsp; ret
const std::vector<uint8_t> kAligning = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
                                        0x48, 0x83, 0xc4, 0x08, 0xc3};
// endbr64; push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret
const std::vector<uint8_t> kFramed = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48,
                                      0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3};

struct Want {
  int cfa_reg;
  int32_t cfa_off;
  uint8_t fp;
  int32_t fp_off;
};

void expectRule(const std::vector<uint8_t>& t, size_t offset, Want w) {
  SCOPED_TRACE("offset " + std::to_string(offset));
  const Rule r = stubRule(t.data(), t.size(), offset);
  ASSERT_EQ(r.cfa_kind, Rule::kCfaReg);
  EXPECT_EQ(r.cfa_reg, w.cfa_reg);
  EXPECT_EQ(r.cfa_off, w.cfa_off);
  EXPECT_EQ(r.ra, Rule::kAtCfa);
  EXPECT_EQ(r.ra_off, -8);
  EXPECT_EQ(r.fp, w.fp);
  if (w.fp == Rule::kAtCfa) EXPECT_EQ(r.fp_off, w.fp_off);
}

TEST(StubRules, AligningTrampoline) {
  expectRule(kAligning, 0, {kStubRsp, 8, Rule::kSame, 0});   // at entry
  expectRule(kAligning, 4, {kStubRsp, 16, Rule::kSame, 0});  // after sub $8
  expectRule(kAligning, 6, {kStubRsp, 16, Rule::kSame, 0});  // the return address
  expectRule(kAligning, 10, {kStubRsp, 8, Rule::kSame, 0});  // after add $8: at ret
  EXPECT_EQ(stubRule(kAligning.data(), kAligning.size(), 2).cfa_kind, Rule::kCfaNone)
      << "inside an instruction";
  EXPECT_EQ(stubRule(kAligning.data(), kAligning.size(), 11).cfa_kind, Rule::kCfaNone);
  EXPECT_EQ(stubReturnOffset(kAligning.data(), kAligning.size()), 6u);
}

TEST(StubRules, FramedTrampoline) {
  expectRule(kFramed, 4, {kStubRsp, 8, Rule::kSame, 0});       // after endbr64
  expectRule(kFramed, 5, {kStubRsp, 16, Rule::kAtCfa, -16});   // after push %rbp
  expectRule(kFramed, 8, {kStubRbp, 16, Rule::kAtCfa, -16});   // after mov %rsp,%rbp
  expectRule(kFramed, 10, {kStubRbp, 16, Rule::kAtCfa, -16});  // the return address
  expectRule(kFramed, 11, {kStubRsp, 8, Rule::kSame, 0});      // after pop %rbp: at ret
  EXPECT_EQ(stubReturnOffset(kFramed.data(), kFramed.size()), 10u);
}

TEST(StubRules, UnknownCodeHasNoRule) {
  const std::vector<uint8_t> other = {0x48, 0x8b, 0x07, 0xff, 0xd1, 0xc3};  // mov (%rdi),%rax; ...
  EXPECT_EQ(stubRule(other.data(), other.size(), 3).cfa_kind, Rule::kCfaNone);
  EXPECT_EQ(stubReturnOffset(other.data(), other.size()), 0u);
  const std::vector<uint8_t> jump = {0xff, 0xe1, 0xc3};  // jmp *%rcx
  EXPECT_EQ(stubRule(jump.data(), jump.size(), 2).cfa_kind, Rule::kCfaNone);
}

// An address space of code without CFI: copies of a stub template at
// [kStubs, kStubs + 0x1000), and a "callee" at kCallee whose every pc is a
// function's entry (CFA = rsp + 8). Stack words from kStack up.
constexpr uint64_t kStubs = 0x10000, kCallee = 0x30000, kStack = 0x7ffc00000000;

class StubMap final : public AddressMap {
 public:
  explicit StubMap(const std::vector<uint8_t>& t) : t_(t) {}
  bool find(uint64_t avma, uint32_t& module, uint64_t& off) const override {
    if (avma >= kStubs && avma < kStubs + 0x1000) {
      module = 0;
      off = avma - kStubs;
      return true;
    }
    if (avma >= kCallee && avma < kCallee + 0x100) {
      module = 1;
      off = avma - kCallee;
      return true;
    }
    return false;
  }
  std::string modulePath(uint32_t) const override { return ""; }  // no CFI anywhere
  Rule knownCodeRule(uint64_t pc, bool) const override {
    if (pc >= kCallee && pc < kCallee + 0x100) return stubRule(kEntry, 1, 0);
    if (pc < kStubs || pc >= kStubs + 0x1000) return {};
    return stubRule(t_.data(), t_.size(), (pc - kStubs) % t_.size());
  }

 private:
  static constexpr uint8_t kEntry[1] = {0xc3};
  const std::vector<uint8_t>& t_;
};

std::vector<uint64_t> unwindThrough(const std::vector<uint8_t>& t, std::vector<uint64_t> words,
                                    uint64_t rbp) {
  StubMap map(t);
  Registers regs;
  regs.set(kStubRip, kCallee + 0x10);
  regs.set(kStubRsp, kStack);
  regs.set(kStubRbp, rbp);
  StackCopy stack{kStack, reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8};
  Unwinder u;
  uint64_t frames[8] = {};
  UnwindResult r = u.unwind(map, regs, stack, nullptr, 0, frames, 8);
  EXPECT_EQ(r.reason, StopReason::kBadFrame) << "the walk ends at the unmapped caller";
  return {frames, frames + r.frames};
}

TEST(StubRules, UnwinderStepsThroughAnAligningTrampoline) {
  // callee <- the 3rd copy (return address at its offset 6) <- 0x99000.
  const uint64_t ret = kStubs + 2 * kAligning.size() + 6;
  // [sp] return into the stub; the stub's sub $8 left a pad; then its caller.
  const auto frames = unwindThrough(kAligning, {ret, 0xdead, 0x99000}, 0x1234);
  EXPECT_EQ(frames, (std::vector<uint64_t>{kCallee + 0x10, ret, 0x99000}));
}

TEST(StubRules, UnwinderStepsThroughAFramedTrampoline) {
  const uint64_t ret = kStubs + kFramed.size() + 10;
  // [sp] return into the stub; the stub's saved %rbp; then its caller. The
  // callee's %rbp is the stub's frame (kStack + 8).
  const auto frames = unwindThrough(kFramed, {ret, 0x5555, 0x99000}, kStack + 8);
  EXPECT_EQ(frames, (std::vector<uint64_t>{kCallee + 0x10, ret, 0x99000}));
}

}  // namespace
}  // namespace strobe::unwind
