// Corrupt DWARF never crashes strobe symbolize: copies of the large fixture
// with bytes of .debug_info, .debug_abbrev, .debug_line and
// .debug_rnglists overwritten at random (fixed seeds) are symbolized on
// 2,000 addresses each. Every address must still get an answer and the
// command must exit 0: strobe's readers (line programs, DIE stepping, range
// lists) refuse what they cannot read and libdw then reads, or not, the
// unit. (The sanitizer build, STROBE_SANITIZE=ON, runs this test too.)
#include <gelf.h>
#include <libelf.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fixture_tools.hpp"
#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {
namespace {

struct FileRange {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t addr = 0;
};

// Where the named sections lie in the file.
std::vector<FileRange> sectionsInFile(const ElfFile& f, const std::vector<std::string>& names) {
  std::vector<FileRange> out;
  size_t shstrndx = 0;
  if (::elf_getshdrstrndx(f.elf(), &shstrndx) != 0) return out;
  for (Elf_Scn* s = ::elf_nextscn(f.elf(), nullptr); s != nullptr; s = ::elf_nextscn(f.elf(), s)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(s, &sh) == nullptr || sh.sh_type == SHT_NOBITS) continue;
    const char* n = ::elf_strptr(f.elf(), shstrndx, sh.sh_name);
    for (const std::string& want : names) {
      if (n != nullptr && want == n) out.push_back({sh.sh_offset, sh.sh_size, sh.sh_addr});
    }
  }
  return out;
}

size_t answers(const std::string& text) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find("\n0x", at)) != std::string::npos; ++at) ++n;
  return n + (text.rfind("0x", 0) == 0 ? 1 : 0);
}

TEST(CorruptDwarfTest, EveryAddressIsAnsweredAndNothingCrashes) {
  std::ifstream in(SYMFIX_LARGE, std::ios::binary);
  std::vector<char> original{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_GT(original.size(), 1000000U);
  auto elf = ElfFile::open(SYMFIX_LARGE);
  ASSERT_TRUE(elf.ok());
  std::vector<FileRange> targets =
      sectionsInFile(*elf, {".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists"});
  ASSERT_EQ(targets.size(), 4U);
  FileRange text = sectionsInFile(*elf, {".text"}).at(0);

  std::mt19937_64 rng(1234);
  std::string input;
  char buf[32];
  for (int i = 0; i < 2000; ++i) {
    std::snprintf(buf, sizeof buf, "0x%llx\n",
                  static_cast<unsigned long long>(text.addr + rng() % text.size));
    input += buf;
  }
  testing::TempFile addrs(std::vector<char>(input.begin(), input.end()));
  auto run = [&](const std::string& bin) {
    return testing::runCommand(std::string("'") + STROBE_EXE + "' symbolize -a -f -i -C -e '" +
                               bin + "' < '" + addrs.path() + "'; echo status=$?");
  };
  const std::string clean = run(SYMFIX_LARGE);
  ASSERT_EQ(answers(clean), 2000U);
  int changed = 0;  // rounds whose answers differ from the clean file's
  for (int round = 0; round < 12; ++round) {
    std::vector<char> bytes = original;
    // Round 0..5: a few bytes per section; 6..11: many, to hit headers too.
    int flips = round < 6 ? 8 : 400;
    for (const FileRange& r : targets) {
      for (int i = 0; i < flips; ++i) {
        bytes[r.offset + rng() % r.size] = static_cast<char>(rng());
      }
    }
    testing::TempFile corrupt(bytes);
    std::string out = run(corrupt.path());
    changed += out != clean ? 1 : 0;
    EXPECT_NE(out.find("\nstatus=0\n"), std::string::npos)
        << "round " << round << ": " << out.substr(out.size() > 300 ? out.size() - 300 : 0);
    EXPECT_EQ(answers(out), 2000U) << "round " << round;
  }
  EXPECT_GE(changed, 6) << "the corruption must reach what the answers are made of";
}

}  // namespace
}  // namespace strobe::symbolize
