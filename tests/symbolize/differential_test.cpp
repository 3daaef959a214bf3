// strobe symbolize -a -f -i -C against binutils addr2line -a -f -i -C on
// 5,000 random .text addresses (fixed seed) of the large generated fixture:
// every frame's function (clone suffixes aside), file and line must agree for
// at least 99.5% of the addresses. Disagreements are printed.
// binutils 2.40 sometimes names the unit's own source file for a header's
// line row (e.g. "unit11.cpp:788" in a 376-line file, where llvm-symbolizer
// and eu-addr2line say stl_tree.h:788): a disagreement where addr2line's
// line lies past the end of the file it names is counted as addr2line's
// error, and counted and printed separately.
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "fixture_tools.hpp"
#include "symbolize/demangle.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

struct SectionRange {
  uint64_t addr = 0;
  uint64_t size = 0;
};

SectionRange section(const ElfFile& f, std::string_view name) {
  size_t shstrndx = 0;
  if (::elf_getshdrstrndx(f.elf(), &shstrndx) != 0) return {};
  for (Elf_Scn* s = ::elf_nextscn(f.elf(), nullptr); s != nullptr; s = ::elf_nextscn(f.elf(), s)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(s, &sh) == nullptr) continue;
    const char* n = ::elf_strptr(f.elf(), shstrndx, sh.sh_name);
    if (n != nullptr && name == n) return {sh.sh_addr, sh.sh_size};
  }
  return {};
}

// The end of the highest section the file loads.
uint64_t endOfSections(const ElfFile& f) {
  uint64_t end = 0;
  for (Elf_Scn* s = ::elf_nextscn(f.elf(), nullptr); s != nullptr; s = ::elf_nextscn(f.elf(), s)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(s, &sh) != nullptr && (sh.sh_flags & SHF_ALLOC) != 0) {
      end = std::max<uint64_t>(end, sh.sh_addr + sh.sh_size);
    }
  }
  return end;
}

// One address's answer: its lines after the address line.
std::vector<std::vector<std::string>> blocks(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0x", 0) == 0) {
      out.emplace_back();
    } else if (!out.empty()) {
      out.back().push_back(line);
    }
  }
  return out;
}

// A function line without " [clone .xxx]" parts.
std::string withoutClones(std::string s) {
  for (size_t at; (at = s.find(" [clone .")) != std::string::npos;) {
    size_t end = s.find(']', at);
    if (end == std::string::npos) break;
    s.erase(at, end + 1 - at);
  }
  return s;
}

// Whether "FILE:LINE[ (discriminator N)]" names a line past the end of FILE.
bool pastEndOfFile(const std::string& file_line, std::map<std::string, size_t>& lengths) {
  std::string s = file_line.substr(0, file_line.find(" (discriminator"));
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  std::string file = s.substr(0, colon);
  size_t line = std::strtoul(s.c_str() + colon + 1, nullptr, 10);
  auto [it, inserted] = lengths.try_emplace(file, 0);
  if (inserted) {
    std::ifstream in(file);
    if (!in) {
      it->second = SIZE_MAX;
    } else {
      std::string l;
      while (std::getline(in, l)) ++it->second;
    }
  }
  return line > it->second;
}

TEST(SymbolizeDifferentialTest, AgreesWithBinutilsAddr2line) {
  auto f = ElfFile::open(SYMFIX_LARGE);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  SectionRange info = section(*f, ".debug_info");
  EXPECT_GE(info.size, 2U << 20) << "the fixture must carry at least 2 MB of .debug_info";
  SectionRange text = section(*f, ".text");
  ASSERT_GT(text.size, 0U);

  std::mt19937_64 rng(20261122);
  std::uniform_int_distribution<uint64_t> pick(text.addr, text.addr + text.size - 1);
  std::string input;
  for (int i = 0; i < 5000; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx\n", static_cast<unsigned long long>(pick(rng)));
    input += buf;
  }
  testing::TempFile addrs(std::vector<char>(input.begin(), input.end()));
  std::string flags =
      " -a -f -i -C -e '" + std::string(SYMFIX_LARGE) + "' < '" + addrs.path() + "'";
  auto reference = blocks(testing::runCommand("addr2line" + flags));
  auto ours = blocks(testing::runCommand(std::string("'") + STROBE_EXE + "' symbolize" + flags));
  ASSERT_EQ(reference.size(), 5000U);
  ASSERT_EQ(ours.size(), 5000U);

  size_t agree = 0;
  size_t binutils_wrong = 0;
  std::map<std::string, size_t> lengths;
  size_t inline_chains = 0;
  size_t printed = 0;
  std::istringstream lines(input);
  for (size_t i = 0; i < reference.size(); ++i) {
    std::string addr;
    std::getline(lines, addr);
    inline_chains += reference[i].size() > 2 ? 1 : 0;
    bool same = reference[i].size() == ours[i].size();
    for (size_t k = 0; same && k < reference[i].size(); ++k) {
      same = withoutClones(reference[i][k]) == withoutClones(ours[i][k]);
    }
    if (same) {
      ++agree;
      continue;
    }
    bool impossible = false;
    for (size_t k = 1; k < reference[i].size(); k += 2) {
      impossible = impossible || pastEndOfFile(reference[i][k], lengths);
    }
    if (impossible) {
      ++binutils_wrong;
      std::printf("addr2line names a line past the end of its file at %s: %s\n", addr.c_str(),
                  reference[i][1].c_str());
      continue;
    }
    if (++printed > 50) continue;
    std::string a;
    std::string b;
    for (const auto& l : reference[i]) a += "\n    " + l;
    for (const auto& l : ours[i]) b += "\n    " + l;
    std::printf("disagreement at %s\n  addr2line:%s\n  strobe:%s\n", addr.c_str(), a.c_str(),
                b.c_str());
  }
  std::printf(
      "%zu of %zu addresses agree; %zu more where addr2line names a line past the end of "
      "its file; %zu have inline chains\n",
      agree, reference.size(), binutils_wrong, inline_chains);
  EXPECT_GE((agree + binutils_wrong) * 1000, reference.size() * 995);
  EXPECT_GT(inline_chains, 500U) << "the fixture should exercise inline chains";
}

// Byte-identical output for each flag combination, on addresses that hit
// every answer form: functions, inline chains, padding, the ELF header (no
// section), past the end of the file, garbage input (read as 0). (Data
// addresses are out of scope: binutils names them by data symbols, strobe
// knows only functions.)
// DwarfIndex::prepare builds units on worker threads (own Dwarf handles);
// the answers must be those of an index that built each unit on first use.
TEST(SymbolizeDifferentialTest, UnitsBuiltInParallelAnswerAsSerial) {
  auto serial_file = ElfFile::open(SYMFIX_LARGE);
  auto parallel_file = ElfFile::open(SYMFIX_LARGE);
  ASSERT_TRUE(serial_file.ok() && parallel_file.ok());
  SectionRange text = section(*serial_file, ".text");
  std::mt19937_64 rng(20261123);
  std::uniform_int_distribution<uint64_t> pick(text.addr, text.addr + text.size - 1);
  std::vector<Svma> pcs;
  for (int i = 0; i < 5000; ++i) pcs.emplace_back(pick(rng));

  DwarfIndex serial(*serial_file);
  DwarfIndex parallel(*parallel_file);
  // By default this 2.2 MB of .debug_info is built on one thread; a worker
  // per MB makes three (all of the 13 units are needed).
  auto one_file = ElfFile::open(SYMFIX_LARGE);
  auto three_file = ElfFile::open(SYMFIX_LARGE);
  ASSERT_TRUE(one_file.ok() && three_file.ok());
  DwarfIndex one(*one_file);
  EXPECT_EQ(one.prepare(pcs, 4), 1U);
  DwarfIndex three(*three_file);
  EXPECT_EQ(three.prepare(pcs, 4, size_t{1} << 20), 3U);
  EXPECT_EQ(parallel.prepare(pcs, 4, /*bytes_per_worker=*/0), 4U);
  size_t inlined = 0;
  std::vector<Frame> a;
  std::vector<Frame> b;
  for (Svma pc : pcs) {
    SCOPED_TRACE(pc.v);
    ASSERT_EQ(serial.frames(pc, a), parallel.frames(pc, b));
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].die, b[k].die);
      EXPECT_EQ(a[k].file, b[k].file);
      EXPECT_EQ(a[k].line, b[k].line);
      EXPECT_EQ(a[k].inlined, b[k].inlined);
      if (a[k].die == 0) continue;
      inlined += a[k].inlined ? 1 : 0;
      const FunctionInfo& fa = serial.function(a[k].function);
      const FunctionInfo& fb = parallel.function(b[k].function);
      EXPECT_EQ(fa.linkage_name, fb.linkage_name);
      EXPECT_EQ(fa.name, fb.name);
      EXPECT_EQ(fa.decl_file, fb.decl_file);
      EXPECT_EQ(fa.decl_line, fb.decl_line);
      EXPECT_EQ(fa.low_pc, fb.low_pc);
    }
  }
  EXPECT_GT(inlined, 1000U) << "the fixture's inline chains must be exercised";
}

TEST(SymbolizeDifferentialTest, SameBytesAsAddr2lineForEveryFlag) {
  auto f = ElfFile::open(SYMFIX_LARGE);
  ASSERT_TRUE(f.ok());
  SectionRange text = section(*f, ".text");
  // Odd lines too: signs, blanks, trailing junk, 17 digits, upper case.
  std::string input =
      "0x0\n10\ngarbage\n+0x10\n-0x5\n  -5\n\t0x20\n0x12g\n0x00000000000000001\n 0x\n0X1A\n";
  char buf[64];
  for (uint64_t a = text.addr; a < text.addr + text.size; a += text.size / 97) {
    std::snprintf(buf, sizeof buf, "%llx\n", static_cast<unsigned long long>(a));
    input += buf;
  }
  // Past every section (not just .text: data there is named differently,
  // see docs/USAGE.md).
  std::snprintf(buf, sizeof buf, "0x%llx\n",
                static_cast<unsigned long long>(endOfSections(*f) + 0x100000));
  input += buf;
  testing::TempFile addrs(std::vector<char>(input.begin(), input.end()));
  for (const char* flags : {"", "-a", "-f", "-i", "-C", "-f -C", "-a -f -i", "-a -f -i -C",
                            "-f -i -C -p", "-a -p -i"}) {
    std::string args =
        std::string(" ") + flags + " -e '" + SYMFIX_LARGE + "' < '" + addrs.path() + "'";
    std::string reference = testing::runCommand("addr2line" + args);
    std::string ours = testing::runCommand(std::string("'") + STROBE_EXE + "' symbolize" + args);
    ASSERT_FALSE(reference.empty());
    // The one known binutils error (a header line under the unit's file
    // name) does not occur at these addresses; everything else is equal.
    auto diff = std::mismatch(ours.begin(), ours.end(), reference.begin(), reference.end());
    size_t at = static_cast<size_t>(diff.first - ours.begin());
    size_t from = ours.rfind('\n', at == 0 ? 0 : at - 1);
    from = from == std::string::npos ? 0 : from + 1;
    EXPECT_TRUE(ours == reference) << "flags '" << flags << "' differ at byte " << at
                                   << "\n  strobe:    " << ours.substr(from, 200)
                                   << "\n  addr2line: " << reference.substr(from, 200);
  }
}

TEST(SymbolizeDifferentialTest, AddressesFromArgumentsAndJson) {
  auto nm = testing::nmSymbols(SYMFIX_LARGE);
  ASSERT_TRUE(nm.count("main"));
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(nm["main"]));
  std::string exe = std::string("'") + STROBE_EXE + "' symbolize -e '" + SYMFIX_LARGE + "' ";
  EXPECT_EQ(
      testing::runCommand(exe + "-f " + addr + " 0"),
      testing::runCommand("addr2line -f -e '" + std::string(SYMFIX_LARGE) + "' " + addr + " 0"));
  std::string json = testing::runCommand(exe + "--json " + addr + " 0");
  EXPECT_NE(json.find("{\"address\":\"0x"), std::string::npos) << json;
  EXPECT_NE(json.find("\"function\":\"main\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"frames\":[]"), std::string::npos) << json;  // address 0
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 2);
  std::string missing = testing::runCommand(
      std::string("'") + STROBE_EXE + "' symbolize -e /nonexistent/x 0x10 2>&1; echo status=$?");
  EXPECT_NE(missing.find("cannot open /nonexistent/x"), std::string::npos) << missing;
  EXPECT_NE(missing.find("status=1"), std::string::npos) << missing;
}

TEST(SymbolizeDifferentialTest, AnswersThatCannotBeWrittenAreAnError) {
  // /dev/full fails every write with ENOSPC, as a disk that filled up.
  std::string args = std::string(" symbolize -e '") + SYMFIX_LARGE + "'";
  std::string from_args = testing::runCommand(std::string("'") + STROBE_EXE + "'" + args +
                                              " 0x10 0x20 2>&1 >/dev/full; echo status=$?");
  std::string from_stdin = testing::runCommand("echo 0x10 | '" + std::string(STROBE_EXE) + "'" +
                                               args + " 2>&1 >/dev/full; echo status=$?");
  const std::string want =
      "strobe: error: cannot write the answers: No space left on device\n"
      "  hint: check that the disk has space and that the reader of the output still runs\n"
      "status=1\n";
  EXPECT_EQ(from_args, want);
  EXPECT_EQ(from_stdin, want);
}

// A program driving strobe symbolize through pipes gets each answer before it
// sends the next address (strobe reads ahead only what is already there).
TEST(SymbolizeDifferentialTest, APipeDriverGetsEachAnswerBeforeSendingMore) {
  auto nm = testing::nmSymbols(SYMFIX_LARGE);
  ASSERT_TRUE(nm.count("main"));
  int to[2], from[2];
  ASSERT_EQ(::pipe(to), 0);
  ASSERT_EQ(::pipe(from), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(to[0], STDIN_FILENO);
    ::dup2(from[1], STDOUT_FILENO);
    for (int fd : {to[0], to[1], from[0], from[1]}) ::close(fd);
    ::execl(STROBE_EXE, STROBE_EXE, "symbolize", "-f", "-e", SYMFIX_LARGE, nullptr);
    ::_exit(127);
  }
  ::close(to[0]);
  ::close(from[1]);
  char main_addr[32];
  std::snprintf(main_addr, sizeof main_addr, "0x%llx\n",
                static_cast<unsigned long long>(nm["main"]));
  std::string got;
  for (int round = 0; round < 3; ++round) {
    const std::string line = round == 1 ? "0x0\n" : main_addr;
    ASSERT_EQ(::write(to[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
    // Two lines (function, file:line) come back without more input.
    std::string answer;
    while (std::count(answer.begin(), answer.end(), '\n') < 2) {
      pollfd p{from[0], POLLIN, 0};
      ASSERT_EQ(::poll(&p, 1, 10000), 1) << "no answer to " << line << "after: " << answer;
      char buf[4096];
      const ssize_t n = ::read(from[0], buf, sizeof buf);
      ASSERT_GT(n, 0);
      answer.append(buf, static_cast<size_t>(n));
    }
    EXPECT_EQ(answer.substr(0, answer.find('\n')), round == 1 ? "??" : "main") << answer;
    got += answer;
  }
  ::close(to[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  char rest[16];
  EXPECT_EQ(::read(from[0], rest, sizeof rest), 0);  // nothing after the three answers
  ::close(from[0]);
}

// Compiler clones (.isra.N, .part.N, .cold, .constprop.N) of the fixture are
// attributed to the function they came from; the clone kind stays in the
// system name.
TEST(SymbolizeDifferentialTest, ClonesAreAttributedToTheirFunction) {
  auto nm = testing::nmSymbols(SYMFIX_LARGE);
  auto loads = testing::readelfLoads(SYMFIX_LARGE);
  model::Profile p;
  model::ModuleId m = p.internModule(SYMFIX_LARGE, "");
  std::vector<std::pair<std::string, model::LocationId>> clones;
  for (const auto& [name, addr] : nm) {
    if (!isClone(name)) continue;
    uint64_t off = testing::svmaToOffset(loads, addr);
    if (off != UINT64_MAX) clones.emplace_back(name, p.internLocation(m, off, addr));
  }
  ASSERT_GE(clones.size(), 3U) << "the fixture should have compiler clones";
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  for (const auto& [name, id] : clones) {
    const model::Location& loc = p.locations()[id];
    ASSERT_FALSE(loc.lines.empty()) << name;
    const model::Function& f = p.functions()[loc.lines.back().function];
    EXPECT_EQ(p.str(f.name), demangle(cloneBase(name))) << name;
    EXPECT_EQ(p.str(f.name).find("[clone"), std::string::npos) << name;
    EXPECT_EQ(p.str(f.system_name), name);
  }
}

}  // namespace
}  // namespace strobe::symbolize
