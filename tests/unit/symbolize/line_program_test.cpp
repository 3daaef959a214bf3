// readLineProgram (strobe decoding a unit's line program) against
// libdwLineProgram (libdw's dwarf_getsrcfiles / dwarf_getsrclines): unit by
// unit, the same file names in the same order and the same rows (address,
// line, file, discriminator, sequence end; libdw sorts its rows, strobe
// keeps program order, so both are compared sorted), for GCC's DWARF 5 and
// DWARF 4, -O0, a shared library, compressed sections, Clang's DWARF 5
// (paths in .debug_line_str, MD5 entries), the large fixture and libc's
// separate debug file. The decoder must also be the path taken.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <tuple>

#include "each_unit.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/line_program.hpp"

namespace strobe::symbolize {
namespace {

void sortRows(std::vector<LineRow>& rows) {
  auto key = [](const LineRow& r) {
    return std::make_tuple(r.addr, r.end, r.line, r.file, r.discriminator);
  };
  std::sort(rows.begin(), rows.end(),
            [&](const LineRow& a, const LineRow& b) { return key(a) < key(b); });
}

void expectSameRows(std::vector<LineRow> rows, std::vector<LineRow> libdw_rows,
                    const std::string& where) {
  ASSERT_EQ(rows.size(), libdw_rows.size()) << where;
  sortRows(rows);
  sortRows(libdw_rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const LineRow& a = rows[i];
    const LineRow& b = libdw_rows[i];
    ASSERT_TRUE(a.addr == b.addr && a.end == b.end && a.line == b.line && a.file == b.file &&
                a.discriminator == b.discriminator)
        << where << " row " << i << ": 0x" << std::hex << a.addr << std::dec << " line " << a.line
        << " file " << a.file << " disc " << a.discriminator << " end " << a.end << " against 0x"
        << std::hex << b.addr << std::dec << " line " << b.line << " file " << b.file << " disc "
        << b.discriminator << " end " << b.end;
  }
}

// Every `stride`-th unit of the file at `path`; the rows compared in all.
size_t compareLineUnits(const std::string& path, size_t stride = 1) {
  size_t total = 0;
  testing::eachUnit(
      path, stride, [&](Dwarf_Die* cudie, const std::string& where, const DebugSections& sections) {
        EXPECT_FALSE(sections.line.empty()) << where;
        Dwarf_Attribute attr;
        Dwarf_Word stmt_list = 0;
        if (::dwarf_formudata(::dwarf_attr(cudie, DW_AT_stmt_list, &attr), &stmt_list) != 0) return;
        const char* comp_dir = ::dwarf_formstring(::dwarf_attr(cudie, DW_AT_comp_dir, &attr));
        std::vector<std::string> files;
        std::vector<LineRow> rows;
        EXPECT_TRUE(readLineProgram(sections, stmt_list, comp_dir, files, rows))
            << where << ": the decoder gave up";
        std::vector<std::string> libdw_files;
        std::vector<LineRow> libdw_rows;
        EXPECT_TRUE(libdwLineProgram(cudie, libdw_files, libdw_rows)) << where;
        EXPECT_EQ(files, libdw_files) << where;
        expectSameRows(rows, libdw_rows, where);
        total += rows.size();
      });
  return total;
}

TEST(LineProgramTest, GccDwarf5AndDwarf4DecodeAsLibdw) {
  for (const char* path : {SYMFIX_PIE, SYMFIX_DWARF4, SYMFIX_NOPIE, SYMFIX_LIB}) {
    EXPECT_GT(compareLineUnits(path), 20U) << path;
  }
}

TEST(LineProgramTest, CompressedSectionsDecodeAsLibdw) {
  EXPECT_GT(compareLineUnits(SYMFIX_ZLIB), 20U);
  EXPECT_GT(compareLineUnits(SYMFIX_ZSTD), 20U);
}

TEST(LineProgramTest, ClangDwarf5DecodesAsLibdw) {
  EXPECT_GT(compareLineUnits(SYMFIX_CLANG), 20U);
}

TEST(LineProgramTest, LargeFixtureDecodesAsLibdw) {
  EXPECT_GT(compareLineUnits(SYMFIX_LARGE), 50000U);
}

TEST(LineProgramTest, LibcSeparateDebugFileDecodesAsLibdw) {
  auto debug = testing::libcDebugFile();
  ASSERT_TRUE(debug.has_value()) << "libc6-dbg is not installed: scripts/deps.sh";
  EXPECT_GT(compareLineUnits(*debug, 8), 10000U);
}

TEST(LineProgramTest, TruncatedProgramIsRefusedNotOverread) {
  auto elf = ElfFile::open(SYMFIX_PIE);
  ASSERT_TRUE(elf.ok());
  DebugSections s = debugSections(elf->elf());
  ASSERT_GT(s.line.size(), 64U);
  std::vector<std::string> files;
  std::vector<LineRow> rows;
  ASSERT_TRUE(readLineProgram(s, 0, "/src", files, rows));
  // Cuts of the first program's bytes (the copy ends where the cut is, so
  // a read past it is a read past the buffer) are refused: in its length,
  // its header, its file tables and its opcodes.
  const size_t program = 4 + (size_t{s.line[0]} | size_t{s.line[1]} << 8 | size_t{s.line[2]} << 16 |
                              size_t{s.line[3]} << 24);
  ASSERT_LE(program, s.line.size());  // 32-bit DWARF: a 4-byte length, then the program
  std::vector<uint8_t> bytes(s.line.begin(), s.line.end());
  for (size_t cut : {size_t{0}, size_t{3}, size_t{10}, size_t{30}, program / 2, program - 1}) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
    DebugSections t = s;
    t.line = part;
    EXPECT_FALSE(readLineProgram(t, 0, "/src", files, rows)) << "cut at " << cut;
    EXPECT_TRUE(files.empty() && rows.empty()) << "cut at " << cut;
  }
  // An offset past the section.
  EXPECT_FALSE(readLineProgram(s, s.line.size(), "/src", files, rows));
}

// Bytes that end right before a page that cannot be read, so that a read
// past them crashes in every build, not only under ASan.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<uint8_t>& bytes) {
    page_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    map_ = ::mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(map_, MAP_FAILED);
    auto* guard = static_cast<uint8_t*>(map_) + page_;
    EXPECT_EQ(::mprotect(guard, page_, PROT_NONE), 0);
    std::memcpy(guard - bytes.size(), bytes.data(), bytes.size());
    span_ = {guard - bytes.size(), bytes.size()};
  }
  ~GuardedBytes() { ::munmap(map_, 2 * page_); }
  [[nodiscard]] std::span<const uint8_t> span() const { return span_; }

 private:
  size_t page_ = 0;
  void* map_ = nullptr;
  std::span<const uint8_t> span_;
};

// A unit of length 0 followed by what looks like a header (found by
// fuzz/line_program_fuzz.cpp): the header was read past the unit's end, and
// its header_length, checked against a negative room, sent the file tables'
// reader past the section.
TEST(LineProgramTest, ZeroLengthUnitHasNoHeader) {
  const GuardedBytes bytes({0,   0,   0,    0,             // unit_length 0
                            4,   0,   0x40, 0,    0,  0,   // version 4, header_length
                            1,   1,   1,    0xfb, 14, 13,  // the header's fields
                            0,   1,   1,    1,    1,  0,
                            0,   0,   1,    0,    0,  1,  // standard opcode lengths
                            'a', 'b', 'c'});
  DebugSections s;
  s.line = bytes.span();
  std::vector<std::string> files;
  std::vector<LineRow> rows;
  EXPECT_FALSE(readLineProgram(s, 0, "/src", files, rows));
  EXPECT_TRUE(files.empty() && rows.empty());
}

// A header_length shorter than the header's own fields (found by
// fuzz/line_program_fuzz.cpp): the file tables were then read from past the
// program's start with an end before their start, and the reader of their
// strings ran off the section. The unit ends the section, right before a
// page that cannot be read, so a read past it crashes in every build.
TEST(LineProgramTest, HeaderLengthShorterThanTheHeaderIsRefused) {
  const std::vector<uint8_t> unit = {
      27,  0,   0,  0,             // unit_length
      4,   0,                      // version 4
      1,   0,   0,  0,             // header_length: 1, though 18 bytes of header follow
      1,   1,   1,  0xfb, 14, 13,  // min_inst, max_ops, is_stmt, line_base, range, base
      0,   1,   1,  1,    1,  0,  0, 0, 1, 0, 0, 1,  // standard opcode lengths
      'a', 'b', 'c'};                                // a directory name without its NUL
  ASSERT_EQ(unit.size(), 4U + 27U);
  const GuardedBytes bytes(unit);
  DebugSections s;
  s.line = bytes.span();
  std::vector<std::string> files;
  std::vector<LineRow> rows;
  EXPECT_FALSE(readLineProgram(s, 0, "/src", files, rows));
  EXPECT_TRUE(files.empty() && rows.empty());
}

// An extended opcode whose length runs past the section (found by
// fuzz/line_program_fuzz.cpp): the end of its operands was computed before
// the length was checked, a pointer overflow (UBSan, in build-asan).
TEST(LineProgramTest, ExtendedOpcodeLongerThanTheSectionIsRefused) {
  const std::vector<uint8_t> unit = {
      36,   0,    0,    0,               // unit_length
      4,    0,                           // version 4
      20,   0,    0,    0,               // header_length
      1,    1,    1,    0xfb, 14,   13,  // min_inst, max_ops, is_stmt, line_base, range, base
      0,    1,    1,    1,    1,    0,    0,    0,    1,   0, 0, 1,  // standard opcode lengths
      0,    0,                                                       // no directories, no files
      0,  // an extended opcode, its length 2^63 - 1:
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  ASSERT_EQ(unit.size(), 4U + 36U);
  DebugSections s;
  s.line = unit;
  std::vector<std::string> files;
  std::vector<LineRow> rows;
  EXPECT_FALSE(readLineProgram(s, 0, "/src", files, rows));
  EXPECT_TRUE(files.empty() && rows.empty());
}

}  // namespace
}  // namespace strobe::symbolize
