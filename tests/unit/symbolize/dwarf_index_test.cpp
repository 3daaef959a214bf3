#include "symbolize/dwarf_index.hpp"

#include <gtest/gtest.h>

#include "fixture_tools.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {
namespace {

struct Fn {
  const char* symbol;
  const char* mark;  // MARK in the source, "" for none
};

// Every byte of each function: our line lookup against binutils' addr2line.
void compareWithAddr2line(const char* bin, const std::vector<Fn>& fns) {
  auto f = ElfFile::open(bin);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  SymbolTable symbols = SymbolTable::read(*f);
  DwarfIndex lines(*f);
  ASSERT_TRUE(lines.hasDebugInfo()) << bin;
  auto nm = testing::nmSymbols(bin);
  for (const Fn& fn : fns) {
    ASSERT_TRUE(nm.count(fn.symbol)) << fn.symbol;
    auto sym = symbols.lookup(Svma(nm[fn.symbol]));
    ASSERT_TRUE(sym.has_value());
    std::vector<uint64_t> addrs;
    for (uint64_t a = sym->start.v; a < sym->start.v + sym->size; ++a) addrs.push_back(a);
    auto expected = testing::addr2line(bin, addrs);
    ASSERT_EQ(expected.size(), addrs.size());
    size_t known = 0;
    for (size_t i = 0; i < addrs.size(); ++i) {
      auto got = lines.lookup(Svma(addrs[i]));
      std::string file = got ? got->file : "??";
      uint32_t line = got ? got->line : 0;
      EXPECT_EQ(file, expected[i].file) << bin << " " << fn.symbol << " +" << i;
      EXPECT_EQ(line, expected[i].line) << bin << " " << fn.symbol << " +" << i;
      known += line != 0 ? 1 : 0;
    }
    EXPECT_GT(known, 0U) << fn.symbol;
  }
}

const std::vector<Fn> kProgramFns = {{"fixture_leaf", "leaf"},
                                     {"_ZN7fixture6scaledIiEET_S1_i", "scaled"},
                                     {"_ZN7fixture6scaledIdEET_S1_i", "scaled"},
                                     {"_ZL12fixtureLocali", "local"},
                                     {"main", ""}};

TEST(DwarfIndexTest, MatchesAddr2lineNonPie) {
  compareWithAddr2line(SYMFIX_NOPIE, kProgramFns);
}
TEST(DwarfIndexTest, MatchesAddr2linePie) {
  compareWithAddr2line(SYMFIX_PIE, kProgramFns);
}
TEST(DwarfIndexTest, MatchesAddr2lineWithoutAranges) {
  compareWithAddr2line(SYMFIX_PIE_NOARANGES, kProgramFns);
}
TEST(DwarfIndexTest, MatchesAddr2lineSharedLibrary) {
  compareWithAddr2line(
      SYMFIX_LIB, {{"fixture_lib_add", "lib_add"}, {"_ZN11fixture_lib7Counter4bumpEi", "bump"}});
}

void expectDeclarations(const char* bin, const char* source, const std::vector<Fn>& fns) {
  auto f = ElfFile::open(bin);
  ASSERT_TRUE(f.ok());
  DwarfIndex lines(*f);
  auto nm = testing::nmSymbols(bin);
  for (const Fn& fn : fns) {
    if (*fn.mark == '\0') continue;
    uint32_t expected = testing::markLine(source, fn.mark);
    ASSERT_NE(expected, 0U) << fn.mark;
    auto decl = lines.declaration(Svma(nm[fn.symbol]));
    ASSERT_TRUE(decl.has_value()) << bin << " " << fn.symbol;
    EXPECT_EQ(decl->file, source) << bin << " " << fn.symbol;
    EXPECT_EQ(decl->line, expected) << bin << " " << fn.symbol;
    EXPECT_EQ(lines.startLine(Svma(nm[fn.symbol])), expected);
  }
}

TEST(DwarfIndexTest, DeclarationIsTheFunctionsDeclLine) {
  expectDeclarations(SYMFIX_NOPIE, SYMFIX_SOURCE, kProgramFns);
  expectDeclarations(SYMFIX_PIE, SYMFIX_SOURCE, kProgramFns);
  expectDeclarations(SYMFIX_LIB, SYMFIX_LIB_SOURCE,
                     {{"fixture_lib_add", "lib_add"}, {"_ZN11fixture_lib7Counter4bumpEi", "bump"}});
}

TEST(DwarfIndexTest, NoDebugInfoIsNotAnError) {
  auto f = ElfFile::open(SYMFIX_LIB_STRIPPED);
  ASSERT_TRUE(f.ok());
  DwarfIndex lines(*f);
  EXPECT_FALSE(lines.hasDebugInfo());
  auto nm = testing::nmSymbols(SYMFIX_LIB);
  EXPECT_FALSE(lines.lookup(Svma(nm["fixture_lib_add"])).has_value());
  EXPECT_FALSE(lines.declaration(Svma(nm["fixture_lib_add"])).has_value());
  EXPECT_EQ(lines.startLine(Svma(nm["fixture_lib_add"])), 0U);
}

TEST(DwarfIndexTest, AddressesOutsideAnyUnitGiveNothing) {
  auto f = ElfFile::open(SYMFIX_PIE);
  ASSERT_TRUE(f.ok());
  DwarfIndex lines(*f);
  EXPECT_FALSE(lines.lookup(Svma(0)).has_value());
  EXPECT_FALSE(lines.lookup(Svma(1ULL << 50)).has_value());
  EXPECT_FALSE(lines.declaration(Svma(1ULL << 50)).has_value());
}

}  // namespace
}  // namespace strobe::symbolize
