// DwarfIndex::function() against libdw: for every frame of random .text
// addresses, the linkage name, name and declaration line are those libdw's
// dwarf_attr_integrate finds from the frame's DIE along
// DW_AT_abstract_origin / DW_AT_specification, whether the index read the
// DIE itself or took its names from the origin the scope scan recorded
// (Scope::names_from); for GCC's DWARF 5 and 4, Clang's DWARF 5 and the
// large generated fixture.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {
namespace {

// An attribute as dwarf_attr_integrate finds it, as a string ("" when absent).
std::string integrated(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute mem;
  Dwarf_Attribute* a = ::dwarf_attr_integrate(die, name, &mem);
  const char* s = a != nullptr ? ::dwarf_formstring(a) : nullptr;
  return s != nullptr ? s : "";
}

// [start, end) of the file's .text.
std::pair<uint64_t, uint64_t> textOf(Elf* elf) {
  size_t strndx = 0;
  if (::elf_getshdrstrndx(elf, &strndx) != 0) return {0, 0};
  for (Elf_Scn* scn = ::elf_nextscn(elf, nullptr); scn != nullptr; scn = ::elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr) continue;
    const char* name = ::elf_strptr(elf, strndx, sh.sh_name);
    if (name != nullptr && std::strcmp(name, ".text") == 0)
      return {sh.sh_addr, sh.sh_addr + sh.sh_size};
  }
  return {0, 0};
}

void expectNamesAsLibdw(const char* bin, size_t samples) {
  auto f = ElfFile::open(bin);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  DwarfIndex index(*f);
  Dwarf* dwarf = ::dwarf_begin_elf(f->elf(), DWARF_C_READ, nullptr);
  ASSERT_NE(dwarf, nullptr) << bin;
  auto [lo, hi] = textOf(f->elf());
  ASSERT_LT(lo, hi) << bin;
  std::mt19937_64 rng(3);
  std::vector<Frame> frames;
  size_t checked = 0;
  size_t inlined = 0;
  for (size_t i = 0; i < samples; ++i) {
    if (!index.frames(Svma(lo + rng() % (hi - lo)), frames)) continue;
    for (const Frame& fr : frames) {
      if (fr.die == 0) continue;
      Dwarf_Die die;
      ASSERT_NE(::dwarf_offdie(dwarf, fr.die, &die), nullptr) << bin;
      const FunctionInfo& info = index.function(fr.function);
      std::string linkage = integrated(&die, DW_AT_linkage_name);
      if (linkage.empty()) linkage = integrated(&die, DW_AT_MIPS_linkage_name);
      EXPECT_EQ(std::string(info.linkage_name), linkage) << bin << " die " << fr.die;
      EXPECT_EQ(std::string(info.name), integrated(&die, DW_AT_name)) << bin << " die " << fr.die;
      int line = 0;
      if (::dwarf_decl_line(&die, &line) == 0 && line > 0) {
        EXPECT_EQ(info.decl_line, static_cast<uint32_t>(line)) << bin << " die " << fr.die;
      }
      ++checked;
      inlined += fr.inlined ? 1 : 0;
    }
  }
  ::dwarf_end(dwarf);
  // Most sampled addresses lie in a DWARF function (the ASan build's
  // binaries came to 49.7%, the plain build's well above one half).
  EXPECT_GT(checked, samples * 2 / 5) << bin;
  EXPECT_GT(inlined, 0U) << bin << ": no inlined frame was checked";
}

TEST(FunctionNamesTest, AreLibdwsIntegratedAttributes) {
  expectNamesAsLibdw(SYMFIX_LARGE, 5000);
  expectNamesAsLibdw(SYMFIX_PIE, 2000);
  expectNamesAsLibdw(SYMFIX_DWARF4, 2000);
  expectNamesAsLibdw(SYMFIX_CLANG, 2000);
}

}  // namespace
}  // namespace strobe::symbolize
