// cfaAt: how the CFA is computed at a pc, read from .eh_frame through
// .eh_frame_hdr without libdw (the -g fp leaf check). Checked against
// libdw's rule (ModuleCfi::ruleAtSvma) at pcs in every function of real
// binaries (PLT entries' expressions and signal trampolines included):
// the same register, or none where libdw's rule has none; left to libdw
// only where no FDE covers the pc.
#include "unwind/cfa_register.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "unwind/module_cfi.hpp"

namespace strobe::unwind {
namespace {

struct SectionCopy {
  std::vector<uint8_t> bytes;
  uint64_t vaddr = 0;
};

// Section `name` of the ELF file at `path`, with its address (empty when absent).
SectionCopy sectionCopyOf(const std::string& path, const std::string& name) {
  ::elf_version(EV_CURRENT);
  SectionCopy out;
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
      if (Elf_Data* d = ::elf_rawdata(scn, nullptr); d != nullptr && d->d_buf != nullptr) {
        const auto* b = static_cast<const uint8_t*>(d->d_buf);
        out.bytes.assign(b, b + d->d_size);
        out.vaddr = sh.sh_addr;
      }
    }
  }
  if (elf != nullptr) ::elf_end(elf);
  ::close(fd);
  return out;
}

struct Tally {
  size_t compared = 0;  // pcs an FDE covers
  size_t unknown = 0;   // ... that cfaAt left to libdw
  size_t none = 0;      // ... where the CFA is not from a register (both agree)
};

Tally compareWithLibdw(const std::string& path) {
  Tally t;
  SectionCopy hdr = sectionCopyOf(path, ".eh_frame_hdr");
  SectionCopy frame = sectionCopyOf(path, ".eh_frame");
  auto index = ehFrameIndex(hdr.bytes, hdr.vaddr, frame.bytes, frame.vaddr);
  EXPECT_TRUE(index.has_value()) << path << ": no usable .eh_frame_hdr";
  auto cfi = ModuleCfi::open(path);
  EXPECT_TRUE(cfi.ok()) << path;
  if (!index || !cfi.ok()) return t;
  for (uint64_t i = 0; i < index->count; ++i) {
    int32_t rel = 0;
    std::memcpy(&rel, index->table.data() + i * 8, 4);
    const uint64_t start = index->hdr_vaddr + static_cast<uint64_t>(int64_t{rel});
    for (uint64_t delta : {0, 1, 3, 4, 8, 13, 32, 100}) {
      const uint64_t pc = start + delta;
      const CfaAt at = cfaAt(*index, pc);
      if (at.kind == CfaAt::kNoFde) continue;
      ++t.compared;
      const Rule r = (*cfi)->ruleAtSvma(pc);
      if (at.kind == CfaAt::kUnknown) {
        ++t.unknown;
        continue;
      }
      const bool by_register = r.cfa_kind != Rule::kCfaNone;
      t.none += by_register ? 0 : 1;
      if (by_register != (at.kind == CfaAt::kRegister) || (by_register && at.reg != r.cfa_reg)) {
        ADD_FAILURE() << path << " pc 0x" << std::hex << pc << std::dec << ": kind " << int{at.kind}
                      << " register " << at.reg << ", libdw's rule kind " << int{r.cfa_kind}
                      << " register " << int{r.cfa_reg};
      }
    }
  }
  return t;
}

TEST(CfaRegisterTest, AgreesWithLibdwEverywhereItAnswers) {
  const std::vector<std::string> paths = {
      "/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6",
      std::string(STROBE_BINARY_DIR) + "/tests/fixtures/fixture_deep_nofp"};
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const Tally t = compareWithLibdw(path);
    EXPECT_GT(t.compared, 50u);
    // Left to libdw: none in what compilers and linkers write here.
    EXPECT_EQ(t.unknown, 0u) << t.unknown << " of " << t.compared;
    std::printf("[ info ] %s: %zu pcs, %zu without a register CFA, as libdw says\n", path.c_str(),
                t.compared, t.none);
  }
}

TEST(CfaRegisterTest, RefusesTablesItCannotFollow) {
  const std::vector<uint8_t> frame(64, 0);
  // Version 2, or a table in udata4 (not datarel sdata4): nothing.
  std::vector<uint8_t> hdr = {2, 0x1b, 0x03, 0x3b, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(ehFrameIndex(hdr, 0x1000, frame, 0x1004).has_value());
  hdr[0] = 1;
  hdr[3] = 0x03;
  EXPECT_FALSE(ehFrameIndex(hdr, 0x1000, frame, 0x1004).has_value());
  // A table claiming more entries than it holds.
  hdr[3] = 0x3b;
  hdr[8] = 200;
  EXPECT_FALSE(ehFrameIndex(hdr, 0x1000, frame, 0x1004).has_value());
  // One entry, eh_frame_ptr pointing elsewhere than .eh_frame.
  hdr[8] = 1;
  EXPECT_FALSE(ehFrameIndex(hdr, 0x1000, frame, 0x2000).has_value());
  // Right: eh_frame_ptr (pc-relative, from 0x1004) names .eh_frame; the FDE
  // it points at is zeros (no entry): no answer, no crash.
  auto index = ehFrameIndex(hdr, 0x1000, frame, 0x1004);
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(cfaAt(*index, 0x1000).kind, CfaAt::kUnknown);
}

}  // namespace
}  // namespace strobe::unwind
