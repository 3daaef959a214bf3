// The disassembler on known machine code: x86-64 bytes as gcc 12 compiled
// tests/fixtures/annotate_loop.cpp's hot() (objdump -d printed the expected
// text), aarch64 words from the Arm ARM encodings, and bytes that do not
// decode.
#include <gtest/gtest.h>

#include <vector>

#include "disasm/disassembler.hpp"

namespace strobe::disasm {
namespace {

// hot() at 0x1250, 56 bytes.
const std::vector<uint8_t> kHot = {
    0x49, 0xb9, 0x15, 0x7c, 0x4a, 0x7f, 0xb9, 0x79, 0x37, 0x9e,  // movabs
    0x4c, 0x8d, 0x46, 0x07,                                      // lea 0x7(%rsi),%r8
    0x31, 0xc9,                                                  // xor %ecx,%ecx
    0x48, 0x89, 0xf8,                                            // 1260 mov %rdi,%rax
    0x31, 0xd2,                                                  // xor %edx,%edx
    0x4c, 0x31, 0xcf,                                            // xor %r9,%rdi
    0x48, 0xf7, 0xf6,                                            // div %rsi
    0x31, 0xd2,                                                  // xor %edx,%edx
    0x48, 0x01, 0xf8,                                            // add %rdi,%rax
    0x49, 0xf7, 0xf0,                                            // div %r8
    0x48, 0x8d, 0x3c, 0x0a,                                      // lea (%rdx,%rcx,1),%rdi
    0x48, 0x83, 0xc1, 0x01,                                      // add $0x1,%rcx
    0x48, 0x81, 0xf9, 0x00, 0x40, 0x00, 0x00,                    // cmp $0x4000,%rcx
    0x75, 0xdc,                                                  // 1282 jne 1260
    0x48, 0x89, 0xf8,                                            // mov %rdi,%rax
    0xc3,                                                        // ret
};

Disassembler open(Arch arch) {
  auto d = Disassembler::open(arch);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().describe());
  return std::move(d).value();
}

std::string text(const Instruction& i) {
  return i.operands.empty() ? i.mnemonic : i.mnemonic + " " + i.operands;
}

TEST(DisassemblerTest, ArchNamesRoundTrip) {
  for (Arch a : {Arch::kX86_64, Arch::kAarch64}) EXPECT_EQ(parseArch(archName(a)), a);
  EXPECT_EQ(archName(Arch::kX86_64), "x86_64");
  EXPECT_EQ(archName(Arch::kAarch64), "aarch64");
  EXPECT_FALSE(parseArch("riscv64"));
  EXPECT_FALSE(parseArch(""));
}

TEST(DisassemblerTest, X86_64AsObjdumpPrintsIt) {
  Disassembler d = open(Arch::kX86_64);
  std::vector<Instruction> ins = d.decode(kHot, 0x1250);
  ASSERT_EQ(ins.size(), 16u);
  // Every byte belongs to one instruction, in order.
  uint64_t at = 0x1250;
  for (const Instruction& i : ins) {
    EXPECT_EQ(i.address, at);
    at += i.size;
  }
  EXPECT_EQ(at, 0x1250 + kHot.size());
  EXPECT_EQ(text(ins[0]), "movabsq $0x9e3779b97f4a7c15, %r9");
  EXPECT_EQ(ins[6].address, 0x1268u);
  EXPECT_EQ(text(ins[6]), "divq %rsi");
  EXPECT_EQ(ins[6].kind, Kind::kOther);
  EXPECT_FALSE(ins[6].target);
  // The loop's back edge: a conditional jump to 0x1260.
  EXPECT_EQ(ins[13].address, 0x1282u);
  EXPECT_EQ(ins[13].mnemonic, "jne");
  EXPECT_EQ(ins[13].kind, Kind::kBranch);
  ASSERT_TRUE(ins[13].target);
  EXPECT_EQ(*ins[13].target, 0x1260u);
  EXPECT_EQ(ins[15].kind, Kind::kReturn);
  EXPECT_EQ(ins[15].mnemonic, "retq");
}

TEST(DisassemblerTest, X86_64JumpsAndCalls) {
  Disassembler d = open(Arch::kX86_64);
  // jmp +3 (to 0x1005); call -2 (to 0x1005); jmp *%rax; call *%rax
  const std::vector<uint8_t> code = {0xeb, 0x03, 0xe8, 0xfe, 0xff, 0xff,
                                     0xff, 0xff, 0xe0, 0xff, 0xd0};
  std::vector<Instruction> ins = d.decode(code, 0x1000);
  ASSERT_EQ(ins.size(), 4u);
  EXPECT_EQ(ins[0].kind, Kind::kJump);
  EXPECT_EQ(ins[0].target, std::optional<uint64_t>(0x1005));
  EXPECT_EQ(ins[1].kind, Kind::kCall);
  EXPECT_EQ(ins[1].target, std::optional<uint64_t>(0x1005));
  EXPECT_EQ(ins[2].kind, Kind::kJump);  // indirect: no target
  EXPECT_FALSE(ins[2].target);
  EXPECT_EQ(ins[3].kind, Kind::kCall);
  EXPECT_FALSE(ins[3].target);
}

TEST(DisassemblerTest, X86_64BadBytesAreSteppedOver) {
  Disassembler d = open(Arch::kX86_64);
  // 0x06 (push %es) and 0x27 (daa) do not exist in 64-bit mode; then a nop
  // and a truncated movabs.
  const std::vector<uint8_t> code = {0x06, 0x27, 0x90, 0x49, 0xb9, 0x15};
  std::vector<Instruction> ins = d.decode(code, 0x40);
  ASSERT_EQ(ins.size(), 6u);
  EXPECT_EQ(ins[0].kind, Kind::kInvalid);
  EXPECT_EQ(text(ins[0]), ".byte 0x06");
  EXPECT_EQ(ins[1].address, 0x41u);
  EXPECT_EQ(text(ins[1]), ".byte 0x27");
  EXPECT_EQ(text(ins[2]), "nop");
  EXPECT_EQ(ins[2].kind, Kind::kOther);
  for (size_t k = 3; k < 6; ++k) EXPECT_EQ(ins[k].kind, Kind::kInvalid) << k;
  EXPECT_EQ(ins[5].address, 0x45u);
  EXPECT_TRUE(d.decode({}, 0x1000).empty());
}

std::vector<uint8_t> words(std::initializer_list<uint32_t> ws) {
  std::vector<uint8_t> out;
  for (uint32_t w : ws) {
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(w >> (8 * k)));
  }
  return out;
}

TEST(DisassemblerTest, Aarch64BranchesCallsAndReturns) {
  Disassembler d = open(Arch::kAarch64);
  EXPECT_EQ(d.arch(), Arch::kAarch64);
  const std::vector<uint8_t> code = words({
      0xd503201f,  // 0x400 nop
      0x14000004,  // 0x404 b 0x414
      0x94000003,  // 0x408 bl 0x414
      0xb4000040,  // 0x40c cbz x0, 0x414
      0x54000041,  // 0x410 b.ne 0x418
      0x37000040,  // 0x414 tbnz w0, #0, 0x41c
      0xd63f0020,  // 0x418 blr x1
      0xd61f0020,  // 0x41c br x1
      0xd65f03c0,  // 0x420 ret
  });
  std::vector<Instruction> ins = d.decode(code, 0x400);
  ASSERT_EQ(ins.size(), 9u);
  EXPECT_EQ(text(ins[0]), "nop");
  EXPECT_EQ(ins[0].kind, Kind::kOther);
  EXPECT_EQ(ins[1].kind, Kind::kJump);
  EXPECT_EQ(ins[1].target, std::optional<uint64_t>(0x414));
  EXPECT_EQ(ins[2].kind, Kind::kCall);
  EXPECT_EQ(ins[2].target, std::optional<uint64_t>(0x414));
  EXPECT_EQ(ins[3].kind, Kind::kBranch);
  EXPECT_EQ(ins[3].target, std::optional<uint64_t>(0x414));
  EXPECT_EQ(ins[4].kind, Kind::kBranch);
  EXPECT_EQ(ins[4].mnemonic, "b.ne");
  EXPECT_EQ(ins[4].target, std::optional<uint64_t>(0x418));
  EXPECT_EQ(ins[5].kind, Kind::kBranch);
  EXPECT_EQ(ins[5].target, std::optional<uint64_t>(0x41c));
  EXPECT_EQ(ins[6].kind, Kind::kCall);
  EXPECT_FALSE(ins[6].target);
  EXPECT_EQ(ins[7].kind, Kind::kJump);
  EXPECT_FALSE(ins[7].target);
  EXPECT_EQ(ins[8].kind, Kind::kReturn);
}

TEST(DisassemblerTest, Aarch64BadWordsAreSteppedOverWholeAndTailsByteWise) {
  Disassembler d = open(Arch::kAarch64);
  // An unallocated encoding, a nop, and two bytes that cannot be a word.
  std::vector<uint8_t> code = words({0xffffffff, 0xd503201f});
  code.push_back(0x1f);
  code.push_back(0x20);
  std::vector<Instruction> ins = d.decode(code, 0x800);
  ASSERT_EQ(ins.size(), 3u);
  EXPECT_EQ(ins[0].kind, Kind::kInvalid);
  EXPECT_EQ(ins[0].size, 4u);
  EXPECT_EQ(text(ins[0]), ".byte 0xff, 0xff, 0xff, 0xff");
  EXPECT_EQ(text(ins[1]), "nop");
  EXPECT_EQ(ins[2].kind, Kind::kInvalid);
  EXPECT_EQ(ins[2].size, 2u);
  EXPECT_EQ(ins[2].address, 0x808u);
}

}  // namespace
}  // namespace strobe::disasm
