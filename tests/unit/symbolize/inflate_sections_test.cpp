// inflateDebugSections on the zlib- and zstd-compressed copies of the PIE
// fixture: the image has the same sections, decompressed, with the unread
// ones hidden; damage to compressed bytes is an error, never a crash.
#include "symbolize/inflate_sections.hpp"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace strobe::symbolize {
namespace {

std::vector<uint8_t> readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Section {
  uint64_t flags;
  uint64_t offset;
  uint64_t size;
};

// Sections by name, read straight from an ELF64 image.
std::map<std::string, Section> sectionsOf(const uint8_t* p) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), p + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  const char* names = reinterpret_cast<const char*>(p + sh[eh.e_shstrndx].sh_offset);
  std::map<std::string, Section> out;
  for (const Elf64_Shdr& s : sh) out[names + s.sh_name] = {s.sh_flags, s.sh_offset, s.sh_size};
  return out;
}

void expectInflated(const char* compressed) {
  std::vector<uint8_t> plain = readFile(SYMFIX_PIE);
  std::vector<uint8_t> raw = readFile(compressed);
  ASSERT_FALSE(raw.empty());
  auto before = sectionsOf(raw.data());
  ASSERT_TRUE(before.count(".debug_info"));
  ASSERT_NE(before[".debug_info"].flags & SHF_COMPRESSED, 0u) << "fixture is not compressed";

  auto img = inflateDebugSections(raw.data(), raw.size(), compressed);
  ASSERT_TRUE(img.ok()) << img.error().describe();
  ASSERT_GT(img->size, 0u);
  auto after = sectionsOf(img->bytes());
  auto want = sectionsOf(plain.data());
  for (const char* name : {".debug_info", ".debug_line", ".debug_str", ".debug_abbrev"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(after.count(name));
    const Section& a = after[name];
    const Section& w = want[name];
    EXPECT_EQ(a.flags & SHF_COMPRESSED, 0u);
    ASSERT_EQ(a.size, w.size);
    EXPECT_EQ(std::memcmp(img->bytes() + a.offset, plain.data() + w.offset, a.size), 0);
  }
  // Location lists are never read: hidden, not inflated.
  if (before.count(".debug_loclists")) {
    EXPECT_EQ(after.count(".debug_loclists"), 0u);
  }
  // Uncompressed sections are copied as they are.
  for (const char* name : {".symtab", ".strtab", ".text"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(after.count(name));
    ASSERT_EQ(after[name].size, before[name].size);
    EXPECT_EQ(std::memcmp(img->bytes() + after[name].offset, raw.data() + before[name].offset,
                          after[name].size),
              0);
  }
}

TEST(InflateSectionsTest, ZlibSectionsMatchThePlainBuild) {
  expectInflated(SYMFIX_ZLIB);
}

TEST(InflateSectionsTest, ZstdSectionsMatchThePlainBuild) {
  expectInflated(SYMFIX_ZSTD);
}

TEST(InflateSectionsTest, UncompressedOrNonElfInputIsLeftAlone) {
  std::vector<uint8_t> plain = readFile(SYMFIX_PIE);
  auto img = inflateDebugSections(plain.data(), plain.size(), SYMFIX_PIE);
  ASSERT_TRUE(img.ok());
  EXPECT_EQ(img->size, 0u);
  const uint8_t junk[] = "not an ELF file at all, just some bytes of text....................";
  auto none = inflateDebugSections(junk, sizeof junk, "junk");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->size, 0u);
}

TEST(InflateSectionsTest, DamagedCompressedBytesAreAnError) {
  std::vector<uint8_t> raw = readFile(SYMFIX_ZLIB);
  Section info = sectionsOf(raw.data())[".debug_info"];
  // Overwrite the middle of the deflate stream.
  std::memset(raw.data() + info.offset + info.size / 2, 0xff, 64);
  auto img = inflateDebugSections(raw.data(), raw.size(), "damaged");
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.error().message,
            "damaged: section .debug_info does not decompress to the size its header states");
}

TEST(InflateSectionsTest, AnImplausibleSizeIsAnError) {
  std::vector<uint8_t> raw = readFile(SYMFIX_ZLIB);
  Section info = sectionsOf(raw.data())[".debug_info"];
  Elf64_Chdr ch;
  std::memcpy(&ch, raw.data() + info.offset, sizeof ch);
  ch.ch_size = uint64_t{1} << 40;
  std::memcpy(raw.data() + info.offset, &ch, sizeof ch);
  auto img = inflateDebugSections(raw.data(), raw.size(), "huge");
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.error().message,
            "huge: section .debug_info claims an implausible size (1099511627776 bytes)");
}

}  // namespace
}  // namespace strobe::symbolize
