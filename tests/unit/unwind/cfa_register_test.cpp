// cfaRegisterAt: the CFA's register at a pc read from .eh_frame through
// .eh_frame_hdr without libdw (the -g fp leaf check). Checked against
// libdw's rule (ModuleCfi::ruleAtSvma) at pcs in every function of real
// binaries: never a different register, and an answer wherever libdw has
// a register-based CFA, but for the few entries it leaves to libdw.
#include "unwind/cfa_register.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <unistd.h>

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
  size_t compared = 0;  // pcs where libdw has a register-based CFA
  size_t answered = 0;  // ... and cfaRegisterAt answered
  size_t differed = 0;  // ... with another register
  size_t extra = 0;     // cfaRegisterAt answered where libdw had no register rule
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
      const Rule r = (*cfi)->ruleAtSvma(pc);
      const std::optional<uint32_t> reg = cfaRegisterAt(*index, pc);
      if (r.cfa_kind != Rule::kCfaReg) {
        if (reg) ++t.extra;
        continue;
      }
      ++t.compared;
      if (!reg) continue;
      ++t.answered;
      if (*reg != r.cfa_reg) {
        ++t.differed;
        ADD_FAILURE() << path << " pc 0x" << std::hex << pc << ": register " << std::dec << *reg
                      << ", libdw's rule " << int{r.cfa_reg};
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
    EXPECT_EQ(t.differed, 0u);
    // libdw answers where the program's rows are read exactly alike; where
    // libdw has no register rule (an expression, no FDE) neither does it.
    EXPECT_GE(static_cast<double>(t.answered), 0.99 * static_cast<double>(t.compared))
        << t.answered << " of " << t.compared;
    EXPECT_EQ(t.extra, 0u);
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
  EXPECT_FALSE(cfaRegisterAt(*index, 0x1000).has_value());
}

}  // namespace
}  // namespace strobe::unwind
