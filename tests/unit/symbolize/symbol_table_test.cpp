#include "symbolize/symbol_table.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include "fixture_tools.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/frame_names.hpp"

namespace strobe::symbolize {
namespace {

SymbolTable readTable(const char* bin) {
  auto f = ElfFile::open(bin);
  EXPECT_TRUE(f.ok()) << bin;
  return f.ok() ? SymbolTable::read(*f) : SymbolTable();
}

std::string nameAt(const SymbolTable& t, uint64_t addr) {
  auto m = t.lookup(Svma(addr));
  return m ? std::string(m->name) : std::string("<none>");
}

TEST(SymbolTableTest, NamesFixtureFunctions) {
  for (const char* bin : {SYMFIX_NOPIE, SYMFIX_PIE}) {
    SymbolTable t = readTable(bin);
    auto nm = testing::nmSymbols(bin);
    for (const char* name : {"fixture_leaf", "main", "_ZN7fixture6scaledIiEET_S1_i",
                             "_ZN7fixture6scaledIdEET_S1_i", "_ZL12fixtureLocali"}) {
      ASSERT_TRUE(nm.count(name)) << bin << " " << name;
      uint64_t start = nm[name];
      EXPECT_EQ(nameAt(t, start), name) << bin;
      EXPECT_EQ(nameAt(t, start + 3), name) << bin;
      auto m = t.lookup(Svma(start + 1));
      ASSERT_TRUE(m.has_value());
      EXPECT_EQ(m->start.v, start);
      EXPECT_GT(m->size, 3U);
      EXPECT_EQ(nameAt(t, start + m->size - 1), name);
    }
  }
}

TEST(SymbolTableTest, SharedLibraryAndStrippedCopy) {
  SymbolTable full = readTable(SYMFIX_LIB);
  SymbolTable stripped = readTable(SYMFIX_LIB_STRIPPED);
  EXPECT_GT(full.size(), stripped.size());  // .symtab adds local symbols
  auto nm = testing::nmSymbols(SYMFIX_LIB);
  for (const char* name : {"fixture_lib_add", "_ZN11fixture_lib7Counter4bumpEi"}) {
    ASSERT_TRUE(nm.count(name)) << name;
    EXPECT_EQ(nameAt(full, nm[name] + 2), name);
    EXPECT_EQ(nameAt(stripped, nm[name] + 2), name);  // from .dynsym alone
  }
}

TEST(SymbolTableTest, NothingBeforeTheFirstSymbol) {
  SymbolTable t = readTable(SYMFIX_PIE);
  EXPECT_FALSE(t.lookup(Svma(0)).has_value());
  EXPECT_FALSE(SymbolTable().lookup(Svma(0x1000)).has_value());
}

TEST(SymbolTableTest, AliasesPreferGlobalThenWeakThenLocal) {
  SymbolTable t = SymbolTable::build({
      {"local_alias", 0x1000, 0x10, STB_LOCAL},
      {"weak_alias", 0x1000, 0x10, STB_WEAK},
      {"__global_internal", 0x1000, 0x10, STB_GLOBAL},
      {"global_public", 0x1000, 0x10, STB_GLOBAL},
      {"only_local", 0x2000, 0x10, STB_LOCAL},
      {"b_weak", 0x3000, 0x10, STB_WEAK},
      {"a_weak", 0x3000, 0x10, STB_WEAK},
      {"a_weak", 0x3000, 0x10, STB_WEAK},  // .symtab and .dynsym both list it
  });
  EXPECT_EQ(t.size(), 3U);
  EXPECT_EQ(nameAt(t, 0x1008), "global_public");
  EXPECT_EQ(nameAt(t, 0x2000), "only_local");
  EXPECT_EQ(nameAt(t, 0x300f), "a_weak");
  EXPECT_EQ(nameAt(t, 0x3010), "<none>");

  // The same symbols in another order give the same answers.
  SymbolTable u = SymbolTable::build({
      {"global_public", 0x1000, 0x10, STB_GLOBAL},
      {"a_weak", 0x3000, 0x10, STB_WEAK},
      {"__global_internal", 0x1000, 0x10, STB_GLOBAL},
      {"b_weak", 0x3000, 0x10, STB_WEAK},
      {"local_alias", 0x1000, 0x10, STB_LOCAL},
  });
  EXPECT_EQ(nameAt(u, 0x1008), "global_public");
  EXPECT_EQ(nameAt(u, 0x3000), "a_weak");
}

TEST(SymbolTableTest, ReportsTakeThePublicShortestAlias) {
  // glibc's debug .symtab: aliases of free, write and __libc_start_main.
  std::vector<RawSymbol> raw = {
      {"__GI___libc_free", 0x1000, 0x10, STB_LOCAL},
      {"__free", 0x1000, 0x10, STB_LOCAL},
      {"__libc_free", 0x1000, 0x10, STB_GLOBAL},
      {"cfree@GLIBC_2.2.5", 0x1000, 0x10, STB_GLOBAL},  // a non-default version
      {"free", 0x1000, 0x10, STB_GLOBAL},
      {"__GI___libc_write", 0x2000, 0x10, STB_LOCAL},
      {"__libc_write", 0x2000, 0x10, STB_LOCAL},
      {"__write", 0x2000, 0x10, STB_WEAK},
      {"write", 0x2000, 0x10, STB_WEAK},
      {"__libc_start_main_impl", 0x3000, 0x10, STB_LOCAL},
      {"__libc_start_main@GLIBC_2.2.5", 0x3000, 0x10, STB_GLOBAL},
      {"__libc_start_main@@GLIBC_2.34", 0x3000, 0x10, STB_GLOBAL},
  };
  SymbolTable reports = SymbolTable::build(raw, AliasPreference::kPublic);
  EXPECT_EQ(nameAt(reports, 0x1000), "free");
  EXPECT_EQ(nameAt(reports, 0x2000), "write");
  EXPECT_EQ(nameAt(reports, 0x3000), "__libc_start_main@@GLIBC_2.34");
  EXPECT_EQ(withoutVersion("__libc_start_main@@GLIBC_2.34"), "__libc_start_main");
  EXPECT_EQ(withoutVersion("cfree@GLIBC_2.2.5"), "cfree");
  EXPECT_EQ(withoutVersion("operator@"), "operator@") << "no version after the @";
  EXPECT_EQ(withoutVersion("plain"), "plain");
  // strobe symbolize keeps addr2line's choice.
  SymbolTable binutils = SymbolTable::build(raw);
  EXPECT_EQ(nameAt(binutils, 0x1000), "cfree@GLIBC_2.2.5");
}

TEST(SymbolTableTest, DefaultVersionBeatsHiddenVersion) {
  // glibc: cfree@GLIBC_2.2.5 (hidden, compat) and free@@GLIBC_2.2.5 share an address.
  SymbolTable t = SymbolTable::build({
      {"cfree", 0x1000, 0x10, STB_GLOBAL, UINT64_MAX, true},
      {"free", 0x1000, 0x10, STB_GLOBAL, UINT64_MAX, false},
  });
  EXPECT_EQ(nameAt(t, 0x1000), "free");
}

TEST(SymbolTableTest, SizedAliasBeatsSizeZero) {
  SymbolTable t = SymbolTable::build({
      {"sized", 0x1000, 0x20, STB_GLOBAL},
      {"unsized", 0x1000, 0, STB_GLOBAL},
  });
  auto m = t.lookup(Svma(0x1010));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->name, "sized");
  EXPECT_EQ(m->size, 0x20U);
}

TEST(SymbolTableTest, SizeZeroSymbolsReachTheNextSymbolOrSectionEnd) {
  SymbolTable t = SymbolTable::build({
      {"asm_stub", 0x1000, 0, STB_GLOBAL, 0x3000},
      {"next", 0x1800, 0x10, STB_GLOBAL, 0x3000},
      {"tail_stub", 0x2000, 0, STB_LOCAL, 0x3000},
  });
  EXPECT_EQ(nameAt(t, 0x1000), "asm_stub");
  EXPECT_EQ(nameAt(t, 0x17ff), "asm_stub");
  EXPECT_EQ(nameAt(t, 0x1800), "next");
  EXPECT_EQ(nameAt(t, 0x1900), "<none>");  // past a sized symbol's end
  EXPECT_EQ(nameAt(t, 0x2fff), "tail_stub");
  EXPECT_EQ(nameAt(t, 0x3000), "<none>");  // its section ends here
  auto m = t.lookup(Svma(0x1004));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->size, 0U);
}

TEST(SymbolTableTest, NestedSymbolsFallBackToTheEnclosingOne) {
  SymbolTable t = SymbolTable::build({
      {"outer", 0x1000, 0x100, STB_GLOBAL},
      {"inner", 0x1040, 0x10, STB_LOCAL},
      {"after", 0x1200, 0x10, STB_GLOBAL},
  });
  EXPECT_EQ(nameAt(t, 0x1020), "outer");
  EXPECT_EQ(nameAt(t, 0x1044), "inner");
  EXPECT_EQ(nameAt(t, 0x1050), "outer");
  EXPECT_EQ(nameAt(t, 0x10ff), "outer");
  EXPECT_EQ(nameAt(t, 0x1100), "<none>");
  EXPECT_EQ(nameAt(t, 0x1205), "after");
}

}  // namespace
}  // namespace strobe::symbolize
