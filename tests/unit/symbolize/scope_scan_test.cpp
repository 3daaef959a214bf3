// scanScopes (strobe stepping over a unit's DIE bytes) against walkScopes
// (libdw's DIE-by-DIE walk): unit by unit, the same scopes with the same
// parents, call sites, low_pcs and origins they take their names from, and
// the same code ranges in the same order, for every shape of debug
// information the tests build: GCC's DWARF 5 and DWARF 4, -O0 and -O2, a
// shared library, zlib- and zstd-compressed sections, Clang's DWARF 5
// (addrx, rnglistx and strx forms), the large generated fixture, and
// libc's separate debug file. The scan must also be
// the path taken: a unit it gave up on would pass unnoticed otherwise.
#include <elfutils/libdw.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "each_unit.hpp"
#include "symbolize/scope_scan.hpp"

namespace strobe::symbolize {
namespace {

struct Totals {
  size_t units = 0;
  size_t scopes = 0;
  size_t inlined = 0;
  size_t ranges = 0;
  size_t named_by_origin = 0;  // scopes with names_from
};

void expectSameUnit(const ScopeOutput& scan, const ScopeOutput& walk, const std::string& where) {
  ASSERT_EQ(scan.scopes.size(), walk.scopes.size()) << where;
  for (size_t i = 0; i < scan.scopes.size(); ++i) {
    const Scope& a = scan.scopes[i];
    const Scope& b = walk.scopes[i];
    ASSERT_EQ(a.die, b.die) << where << " scope " << i;
    EXPECT_EQ(a.id, b.id) << where << " die " << a.die;
    EXPECT_EQ(a.parent, b.parent) << where << " die " << a.die;
    EXPECT_EQ(a.inlined, b.inlined) << where << " die " << a.die;
    EXPECT_EQ(a.call_file, b.call_file) << where << " die " << a.die;
    EXPECT_EQ(a.call_line, b.call_line) << where << " die " << a.die;
    EXPECT_EQ(a.names_from, b.names_from) << where << " die " << a.die;
  }
  EXPECT_EQ(scan.low_pcs, walk.low_pcs) << where;
  ASSERT_EQ(scan.ranges.size(), walk.ranges.size()) << where;
  for (size_t i = 0; i < scan.ranges.size(); ++i) {
    const CodeRange& a = scan.ranges[i];
    const CodeRange& b = walk.ranges[i];
    EXPECT_TRUE(a.lo == b.lo && a.hi == b.hi && a.scope == b.scope)
        << where << " range " << i << ": [" << a.lo << ", " << a.hi << ") scope " << a.scope
        << " against [" << b.lo << ", " << b.hi << ") scope " << b.scope;
  }
}

// Every `stride`-th unit of the file at `path`.
Totals compareScopeUnits(const std::string& path, size_t stride = 1) {
  Totals t;
  testing::eachUnit(
      path, stride, [&](Dwarf_Die* cudie, const std::string& where, const DebugSections& sections) {
        ScopeOutput scan;
        ScopeOutput walk;
        scan.file_count = walk.file_count = 1 << 16;  // every call_file kept
        ScopeSink scan_sink(scan);
        ScopeSink walk_sink(walk);
        EXPECT_TRUE(scanScopes(cudie, sections, scan_sink)) << where << ": the scan gave up";
        walkScopes(cudie, walk_sink);
        expectSameUnit(scan, walk, where);
        ++t.units;
        t.scopes += scan.scopes.size();
        t.ranges += scan.ranges.size();
        for (const Scope& s : scan.scopes) {
          t.inlined += s.inlined ? 1 : 0;
          t.named_by_origin += s.names_from != 0 ? 1 : 0;
        }
      });
  return t;
}

TEST(ScopeScanTest, GccDwarf5AndDwarf4ReadAsLibdwWalks) {
  for (const char* path : {SYMFIX_PIE, SYMFIX_DWARF4, SYMFIX_NOPIE}) {
    EXPECT_GT(compareScopeUnits(path).scopes, 5U) << path;
  }
  EXPECT_GT(compareScopeUnits(SYMFIX_LIB).scopes, 0U);
  // -O2 inlines: the chains below the functions are read too.
  EXPECT_GT(compareScopeUnits(SYMFIX_PIE).inlined, 0U);
  EXPECT_GT(compareScopeUnits(SYMFIX_DWARF4).inlined, 0U);
}

TEST(ScopeScanTest, CompressedSectionsReadAsLibdwWalks) {
  EXPECT_GT(compareScopeUnits(SYMFIX_ZLIB).scopes, 5U);
  EXPECT_GT(compareScopeUnits(SYMFIX_ZSTD).scopes, 5U);
}

TEST(ScopeScanTest, ClangDwarf5FormsReadAsLibdwWalks) {
  // Clang's DWARF 5 names addresses through .debug_addr (DW_FORM_addrx),
  // ranges through .debug_rnglists offsets (DW_FORM_rnglistx) and strings
  // through .debug_str_offsets (DW_FORM_strx1).
  Totals t = compareScopeUnits(SYMFIX_CLANG);
  EXPECT_GT(t.scopes, 5U);
  EXPECT_GT(t.inlined, 0U);
}

TEST(ScopeScanTest, LargeFixtureReadsAsLibdwWalks) {
  Totals t = compareScopeUnits(SYMFIX_LARGE);
  EXPECT_GE(t.units, 13U);  // 12 generated units and main (and a sanitizer's, when built so)
  EXPECT_GT(t.scopes, 10000U);
  EXPECT_GT(t.inlined, 5000U);
  EXPECT_GT(t.named_by_origin, t.inlined);  // every inlined instance, and out-of-line copies
}

TEST(ScopeScanTest, LibcSeparateDebugFileReadsAsLibdwWalks) {
  // libc's DWARF in a compressed file found by build-id, written by another
  // compiler run than the tests' fixtures.
  auto debug = testing::libcDebugFile();
  ASSERT_TRUE(debug.has_value()) << "libc6-dbg is not installed: scripts/deps.sh";
  Totals t = compareScopeUnits(*debug, 8);  // a sample across the file: all take seconds
  EXPECT_GT(t.units, 100U);
  EXPECT_GT(t.scopes, 500U);
}

}  // namespace
}  // namespace strobe::symbolize
