// cfiRegistersBounded: the check that keeps libdw from growing a frame's
// register table to a hostile register number (found by fuzz/cfi_fuzz.cpp:
// 4 GB for one DW_CFA_restore_extended). Real CFI passes, in .eh_frame
// and .debug_frame; one register past the bound is refused, in a CIE's
// initial instructions and in an FDE's, wherever libdw finds them.
#include "unwind/cfi_registers.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace strobe::unwind {
namespace {

// The bytes of section `name` of the ELF file at `path` (empty when absent).
std::vector<uint8_t> sectionOf(const std::string& path, const std::string& name) {
  ::elf_version(EV_CURRENT);
  std::vector<uint8_t> out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  Elf* elf = ::elf_begin(fd, ELF_C_READ, nullptr);
  size_t shstrndx = 0;
  if (elf != nullptr && ::elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr sh;
      const char* n =
          ::gelf_getshdr(scn, &sh) != nullptr ? ::elf_strptr(elf, shstrndx, sh.sh_name) : nullptr;
      if (n == nullptr || name != n) continue;
      if ((sh.sh_flags & SHF_COMPRESSED) != 0) ::elf_compress(scn, 0, 0);
      if (Elf_Data* d = ::elf_getdata(scn, nullptr); d != nullptr && d->d_buf != nullptr) {
        const auto* b = static_cast<const uint8_t*>(d->d_buf);
        out.assign(b, b + d->d_size);
      }
    }
  }
  if (elf != nullptr) ::elf_end(elf);
  ::close(fd);
  return out;
}

// A CIE (augmentation "zR", FDE pointers in `encoding`: pcrel|sdata4, or
// a LEB128 one) and one FDE whose instructions are `fde_ops`, then the
// terminator.
std::vector<uint8_t> ehFrame(const std::vector<uint8_t>& cie_ops,
                             const std::vector<uint8_t>& fde_ops, uint8_t encoding = 0x1b) {
  std::vector<uint8_t> cie = {0, 0,   0,   0,  // CIE id
                              1, 'z', 'R', 0, 1, 0x78, 16, 1, encoding};
  cie.insert(cie.end(), cie_ops.begin(), cie_ops.end());
  while ((cie.size() + 4) % 8 != 0) cie.push_back(0);  // DW_CFA_nop
  std::vector<uint8_t> out = {static_cast<uint8_t>(cie.size()), 0, 0, 0};
  out.insert(out.end(), cie.begin(), cie.end());
  const uint32_t cie_pointer = static_cast<uint32_t>(out.size() + 4);
  std::vector<uint8_t> fde = {static_cast<uint8_t>(cie_pointer), 0, 0, 0};  // back to the CIE
  const bool leb = (encoding & 0x07) == 0x01;  // DW_EH_PE_uleb128, DW_EH_PE_sleb128
  if (leb) {
    fde.insert(fde.end(), {0, 64});  // initial location, range
  } else {
    fde.insert(fde.end(), {0, 0, 0, 0, 64, 0, 0, 0});
  }
  fde.push_back(0);  // augmentation data length
  fde.insert(fde.end(), fde_ops.begin(), fde_ops.end());
  while ((fde.size() + 4) % 8 != 0) fde.push_back(0);
  out.push_back(static_cast<uint8_t>(fde.size()));
  out.insert(out.end(), {0, 0, 0});
  out.insert(out.end(), fde.begin(), fde.end());
  out.insert(out.end(), {0, 0, 0, 0});
  return out;
}

TEST(CfiRegisters, RealFilesAreBounded) {
  for (const std::string& path :
       {std::string("/proc/self/exe"), std::string("/lib/x86_64-linux-gnu/libc.so.6"),
        std::string(STROBE_BINARY_DIR "/tests/fixtures/fixture_deep_nofp")}) {
    std::vector<uint8_t> eh = sectionOf(path, ".eh_frame");
    ASSERT_FALSE(eh.empty()) << path;
    EXPECT_TRUE(cfiRegistersBounded(eh, true)) << path;
    // The entries are really read: every x86-64 CIE names r16 (the return
    // address column), and FDEs name rbx, rbp, r12..r15.
    EXPECT_FALSE(cfiRegistersBounded(eh, true, 16)) << path;
    std::vector<uint8_t> debug = sectionOf(path, ".debug_frame");
    if (!debug.empty()) {
      EXPECT_TRUE(cfiRegistersBounded(debug, false)) << path;
    }
  }
}

TEST(CfiRegisters, UsualRulesAreBounded) {
  // def_cfa rsp+8, offset r16 at cfa-8; advance, def_cfa_offset 16, offset rbp.
  EXPECT_TRUE(cfiRegistersBounded(ehFrame({0x0c, 7, 8, 0x90, 1}, {0x41, 0x0e, 16, 0x86, 2}), true));
}

TEST(CfiRegisters, AHugeRegisterIsRefused) {
  // DW_CFA_restore_extended of register 2^28 (what the fuzzer found), in
  // an FDE and in a CIE; DW_CFA_register naming it second; and one past
  // the bound.
  const std::vector<uint8_t> huge = {0x80, 0x80, 0x80, 0x80, 0x01};
  std::vector<uint8_t> op = {0x06};
  op.insert(op.end(), huge.begin(), huge.end());
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, op), true));
  EXPECT_FALSE(cfiRegistersBounded(ehFrame(op, {}), true));
  std::vector<uint8_t> reg = {0x09, 6};
  reg.insert(reg.end(), huge.begin(), huge.end());
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, reg), true));
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, {0x07, 0x80, 0x08}), true, 1024));  // 1024
  EXPECT_TRUE(cfiRegistersBounded(ehFrame({}, {0x07, 0xff, 0x07}), true, 1024));   // 1023
}

TEST(CfiRegisters, FdesWithLeb128AddressesAreChecked) {
  // The fuzzer's second way past the check: a CIE whose FDE pointers are
  // LEB128 (DW_EH_PE_textrel|DW_EH_PE_sleb128), which libdw reads.
  const std::vector<uint8_t> huge = {0x14, 0xfe, 0xff, 0xff, 0x7d, 0};  // val_offset 2^28-ish
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, huge, 0x29), true));
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, huge, 0x01), true));
  // DW_CFA_set_loc with a LEB128 operand, then the huge register.
  std::vector<uint8_t> set_loc = {0x01, 0x80, 0x01};
  set_loc.insert(set_loc.end(), huge.begin(), huge.end());
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, set_loc, 0x09), true));
  EXPECT_TRUE(cfiRegistersBounded(ehFrame({}, {0x41, 0x0e, 16, 0x86, 2}, 0x09), true));
}

TEST(CfiRegisters, OpcodesLibdwRunsDoNotEndTheCheck) {
  // DW_CFA_GNU_window_save (no operands; the fuzzer hid a huge register
  // behind it) and DW_CFA_MIPS_advance_loc8 (8 bytes) before a
  // restore_extended of register 2^28.
  const std::vector<uint8_t> huge = {0x06, 0x80, 0x80, 0x80, 0x80, 0x01};
  std::vector<uint8_t> window = {0x2d};
  window.insert(window.end(), huge.begin(), huge.end());
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, window), true));
  std::vector<uint8_t> loc8 = {0x1d, 0x06, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0};
  loc8.insert(loc8.end(), huge.begin(), huge.end());
  EXPECT_FALSE(cfiRegistersBounded(ehFrame({}, loc8), true));
}

TEST(CfiRegisters, ACiePointedAtInsideAnotherEntryIsChecked) {
  // The fuzzer's third way past the check: libdw reads an FDE's CIE
  // wherever its pointer lands. Here a CIE with a huge register sits in
  // the augmentation data of the first FDE (which a walk of the entries
  // steps over), and the second FDE points at it.
  std::vector<uint8_t> out;
  auto u32 = [](std::vector<uint8_t>& v, uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  };
  const std::vector<uint8_t> cie = {0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b};
  u32(out, static_cast<uint32_t>(cie.size()));
  out.insert(out.end(), cie.begin(), cie.end());
  std::vector<uint8_t> hidden_body = cie;
  hidden_body.insert(hidden_body.end(), {0x06, 0x80, 0x80, 0x80, 0x80, 0x01});
  std::vector<uint8_t> hidden;
  u32(hidden, static_cast<uint32_t>(hidden_body.size()));
  hidden.insert(hidden.end(), hidden_body.begin(), hidden_body.end());
  // FDE 1: of the CIE at 0, its augmentation data the hidden CIE.
  std::vector<uint8_t> fde1;
  const uint32_t fde1_id_at = static_cast<uint32_t>(out.size() + 4);
  u32(fde1, fde1_id_at);  // back to offset 0
  u32(fde1, 0);           // initial location
  u32(fde1, 64);          // range
  fde1.push_back(static_cast<uint8_t>(hidden.size()));
  const uint32_t hidden_at = fde1_id_at + static_cast<uint32_t>(fde1.size());
  fde1.insert(fde1.end(), hidden.begin(), hidden.end());
  u32(out, static_cast<uint32_t>(fde1.size()));
  out.insert(out.end(), fde1.begin(), fde1.end());
  // FDE 2: of the hidden CIE.
  std::vector<uint8_t> fde2;
  const uint32_t fde2_id_at = static_cast<uint32_t>(out.size() + 4);
  u32(fde2, fde2_id_at - hidden_at);
  u32(fde2, 64);
  u32(fde2, 64);
  fde2.push_back(0);
  u32(out, static_cast<uint32_t>(fde2.size()));
  out.insert(out.end(), fde2.begin(), fde2.end());
  u32(out, 0);
  EXPECT_FALSE(cfiRegistersBounded(out, true));
  // The same FDE pointing at the CIE at 0 is bounded.
  const size_t fde2_pointer = fde2_id_at;
  const uint32_t to_first = fde2_id_at;
  for (int i = 0; i < 4; ++i) out[fde2_pointer + i] = static_cast<uint8_t>(to_first >> (8 * i));
  EXPECT_TRUE(cfiRegistersBounded(out, true));
}

}  // namespace
}  // namespace strobe::unwind
