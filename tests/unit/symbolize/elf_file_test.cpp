#include "symbolize/elf_file.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include <random>

#include "fixture_tools.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {
namespace {

using testing::readBytes;
using testing::TempFile;

TEST(ElfFileTest, BuildIdMatchesReadelf) {
  for (const char* bin : {SYMFIX_NOPIE, SYMFIX_PIE, SYMFIX_LIB}) {
    auto f = ElfFile::open(bin);
    ASSERT_TRUE(f.ok()) << f.error().describe();
    std::string expected = testing::readelfBuildId(bin);
    ASSERT_FALSE(expected.empty()) << bin;
    EXPECT_EQ(f->buildId(), expected) << bin;
  }
}

TEST(ElfFileTest, TypeAndPie) {
  auto nopie = ElfFile::open(SYMFIX_NOPIE);
  auto pie = ElfFile::open(SYMFIX_PIE);
  auto lib = ElfFile::open(SYMFIX_LIB);
  ASSERT_TRUE(nopie.ok() && pie.ok() && lib.ok());
  EXPECT_EQ(nopie->type(), ET_EXEC);
  EXPECT_FALSE(nopie->isPie());
  EXPECT_EQ(pie->type(), ET_DYN);
  EXPECT_TRUE(pie->isPie());
  EXPECT_EQ(lib->type(), ET_DYN);
  EXPECT_FALSE(lib->isPie());
}

TEST(ElfFileTest, LoadSegmentsMatchReadelf) {
  for (const char* bin : {SYMFIX_NOPIE, SYMFIX_PIE, SYMFIX_LIB}) {
    auto f = ElfFile::open(bin);
    ASSERT_TRUE(f.ok());
    auto rows = testing::readelfLoads(bin);
    ASSERT_EQ(f->loadSegments().size(), rows.size()) << bin;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(f->loadSegments()[i].offset.v, rows[i].offset);
      EXPECT_EQ(f->loadSegments()[i].vaddr.v, rows[i].vaddr);
      EXPECT_EQ(f->loadSegments()[i].file_size, rows[i].file_size);
    }
  }
}

// The text is not in the first PT_LOAD of these binaries: offset -> SVMA must
// pick the segment holding the offset.
void expectOffsetsMapBack(const char* bin, const char* symbol) {
  auto f = ElfFile::open(bin);
  ASSERT_TRUE(f.ok());
  auto syms = testing::nmSymbols(bin);
  ASSERT_TRUE(syms.count(symbol)) << symbol;
  uint64_t svma = syms[symbol];
  uint64_t off = testing::svmaToOffset(testing::readelfLoads(bin), svma);
  ASSERT_NE(off, UINT64_MAX);
  auto got = f->fileOffsetToSvma(FileOffset(off));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->v, svma) << bin;
}

TEST(ElfFileTest, FileOffsetToSvmaNonPie) {
  expectOffsetsMapBack(SYMFIX_NOPIE, "fixture_leaf");
  expectOffsetsMapBack(SYMFIX_NOPIE, "main");
  auto f = ElfFile::open(SYMFIX_NOPIE);
  ASSERT_TRUE(f.ok());
  auto svma = f->fileOffsetToSvma(FileOffset(0));  // the ELF header, mapped at the image base
  ASSERT_TRUE(svma.has_value());
  EXPECT_EQ(svma->v, 0x400000U);
}

TEST(ElfFileTest, FileOffsetToSvmaPie) {
  expectOffsetsMapBack(SYMFIX_PIE, "fixture_leaf");
  expectOffsetsMapBack(SYMFIX_PIE, "main");
  expectOffsetsMapBack(SYMFIX_LIB, "fixture_lib_add");
}

TEST(ElfFileTest, OffsetOutsideSegmentsIsNullopt) {
  auto f = ElfFile::open(SYMFIX_PIE);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->fileOffsetToSvma(FileOffset(1ULL << 40)).has_value());
  // The section headers at the end of the file are in no segment.
  uint64_t size = readBytes(SYMFIX_PIE).size();
  EXPECT_FALSE(f->fileOffsetToSvma(FileOffset(size - 1)).has_value());
}

TEST(ElfFileTest, MissingFileIsNotFound) {
  auto f = ElfFile::open("/nonexistent/strobe/binary");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(f.error().message.find("/nonexistent/strobe/binary"), std::string::npos);
}

TEST(ElfFileTest, NonElfFilesAreCorrupt) {
  TempFile text(std::vector<char>{'h', 'e',  'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l',
                                  'd', '\n', 'n', 'o', 't', ' ', 'e', 'l', 'f', '\n'});
  TempFile empty(std::vector<char>{});
  for (const std::string& path : {text.path(), empty.path(), std::string("/tmp")}) {
    auto f = ElfFile::open(path);
    ASSERT_FALSE(f.ok()) << path;
    EXPECT_EQ(f.error().kind, ErrorKind::kCorrupt) << path;
    EXPECT_NE(f.error().message.find(path), std::string::npos);
  }
}

TEST(ElfFileTest, TruncatedElfIsCorrupt) {
  std::vector<char> bytes = readBytes(SYMFIX_PIE);
  ASSERT_GT(bytes.size(), 4096U);
  for (size_t keep : {size_t{4}, size_t{16}, size_t{52}, size_t{64}, size_t{200}, size_t{4096},
                      bytes.size() / 2, bytes.size() - 1}) {
    TempFile t(std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
    auto f = ElfFile::open(t.path());
    ASSERT_FALSE(f.ok()) << "kept " << keep << " bytes";
    EXPECT_EQ(f.error().kind, ErrorKind::kCorrupt) << "kept " << keep << " bytes";
  }
}

// Random byte damage anywhere in a real binary: opening, reading symbols and
// looking up lines must fail cleanly or succeed, never crash.
TEST(ElfFileTest, DamagedBinariesNeverCrash) {
  const std::vector<char> original = readBytes(SYMFIX_PIE);
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 150; ++round) {
    std::vector<char> bytes = original;
    // The first rounds hit the headers, the rest anywhere.
    size_t span = round < 50 ? std::min<size_t>(bytes.size(), 1024) : bytes.size();
    for (int k = 0; k < 8; ++k) bytes[rng() % span] = static_cast<char>(rng());
    TempFile t(bytes);
    auto f = ElfFile::open(t.path());
    if (!f.ok()) continue;
    SymbolTable symbols = SymbolTable::read(*f);
    DwarfIndex lines(*f);
    for (uint64_t pc = 0x1000; pc < 0x1400; pc += 0x40) {
      (void)symbols.lookup(Svma(pc));
      (void)lines.lookup(Svma(pc));
      (void)lines.declaration(Svma(pc));
    }
  }
}

}  // namespace
}  // namespace strobe::symbolize
