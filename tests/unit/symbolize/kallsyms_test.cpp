// Kallsyms on crafted /proc/kallsyms text and on the running kernel's.
#include "symbolize/kallsyms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <vector>

#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

// The address of every well-formed line of `text` (its first field).
std::vector<uint64_t> listedAddresses(std::string_view text) {
  std::vector<uint64_t> out;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    const size_t sp = line.find(' ');
    uint64_t a = 0;
    if (sp == std::string_view::npos || sp == 0) continue;
    auto [end, ec] = std::from_chars(line.data(), line.data() + sp, a, 16);
    if (ec == std::errc() && end == line.data() + sp) out.push_back(a);
  }
  return out;
}

// Where to ask: every listed address, one before and one past it, halfway
// to the next one, and the ends of the address space.
std::vector<uint64_t> probes(std::string_view text) {
  std::vector<uint64_t> listed = listedAddresses(text);
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  std::vector<uint64_t> out = {0, 1, UINT64_MAX, UINT64_MAX - 1};
  for (size_t i = 0; i < listed.size(); ++i) {
    const uint64_t a = listed[i];
    out.push_back(a);
    out.push_back(a - 1);
    out.push_back(a + 1);
    if (i + 1 < listed.size()) out.push_back(a + (listed[i + 1] - a) / 2);
  }
  return out;
}

std::string describe(const std::optional<std::string_view>& name,
                     const std::optional<Kallsyms::Range>& r) {
  std::ostringstream s;
  s << (name ? std::string(*name) : std::string("(none)")) << " ";
  if (r) {
    s << std::hex << "[0x" << r->start << ", 0x" << r->end << ")";
  } else {
    s << "(no range)";
  }
  return s.str();
}

// Expects `k` to answer as the whole parse of the same text at every
// `stride`th probe.
void expectAnswersOfWholeParse(const Kallsyms& k, std::string_view text, const std::string& what,
                               size_t stride = 1) {
  const Kallsyms whole = Kallsyms::parseWhole(text);
  EXPECT_FALSE(whole.indexed()) << what;
  EXPECT_EQ(k.hidden(), whole.hidden()) << what;
  EXPECT_EQ(k.empty(), whole.empty()) << what;
  size_t wrong = 0;
  std::vector<uint64_t> at = probes(text);
  for (size_t i = 0; i < at.size(); i += stride) at[i / stride] = at[i];
  at.resize((at.size() + stride - 1) / stride);
  for (uint64_t a : at) {
    const auto name = k.lookup(a);
    const auto want_name = whole.lookup(a);
    const auto r = k.range(a);
    const auto want_r = whole.range(a);
    const bool same = name == want_name && r.has_value() == want_r.has_value() &&
                      (!r || (r->start == want_r->start && r->end == want_r->end));
    if (!same && ++wrong <= 5) {
      ADD_FAILURE() << what << " at 0x" << std::hex << a << ": " << describe(name, r)
                    << ", the whole parse says " << describe(want_name, want_r);
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": of " << at.size() << " addresses";
}

// Both ways of parsing `text` answer alike; the index is used or not.
void expectIndexedAsWhole(std::string_view text, bool indexed, const std::string& what,
                          size_t stride = 1) {
  const Kallsyms k = Kallsyms::parse(text);
  EXPECT_EQ(k.indexed(), indexed) << what;
  expectAnswersOfWholeParse(k, text, what, stride);
}

TEST(Kallsyms, TextSymbolsSortedAndLookedUp) {
  auto k = Kallsyms::parse(
      "ffffffff81000200 T second\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t first_local\n"
      "ffffffff82000000 D some_data\n"
      "ffffffffc0000000 t mod_func\t[ext4]\n"
      "not a line\n"
      "ffffffff8100zzzz T bad\n");
  EXPECT_FALSE(k.hidden());
  EXPECT_FALSE(k.empty());
  EXPECT_FALSE(k.indexed());  // the kernel's lines are out of order: parsed whole
  EXPECT_EQ(k.lookup(0xffffffff81000000ULL), "_stext");
  EXPECT_EQ(k.lookup(0xffffffff81000150ULL), "first_local");
  EXPECT_EQ(k.lookup(0xffffffff81000200ULL), "second");
  EXPECT_EQ(k.lookup(0xffffffffc0000010ULL), "mod_func [ext4]");
  EXPECT_FALSE(k.lookup(0xffffffff80000000ULL).has_value());
  auto r = k.range(0xffffffff81000210ULL);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->start, 0xffffffff81000200ULL);
  EXPECT_EQ(r->end, 0xffffffffc0000000ULL);  // the next text symbol, past the data
}

// A mapped file's pages let go (a report does so once its frames are
// named, for its peak memory): the answers and the names already handed out
// read the same bytes again.
TEST(Kallsyms, MappedFileAnswersTheSameAfterItsPagesGo) {
  const std::string path = ::testing::TempDir() + "/kallsyms_release";
  {
    std::ofstream out(path, std::ios::binary);
    out << "ffffffff81000000 T _stext\n"
           "ffffffff81000100 t first_local\n"
           "ffffffff81000200 T second\n"
           "ffffffffc0000000 t mod_func\t[ext4]\n";
  }
  auto k = Kallsyms::load(path);
  std::remove(path.c_str());  // the mapping keeps the file
  ASSERT_TRUE(k.ok()) << k.error().describe();
  EXPECT_TRUE(k->indexed());
  const std::optional<std::string_view> named = k->lookup(0xffffffff81000150ULL);
  ASSERT_EQ(named, "first_local");
  k->releasePages();
  EXPECT_EQ(*named, "first_local");
  EXPECT_EQ(k->lookup(0xffffffff81000150ULL), "first_local");
  EXPECT_EQ(k->lookup(0xffffffff81000200ULL), "second");
  EXPECT_EQ(k->lookup(0xffffffffc0000010ULL), "mod_func [ext4]");
}

TEST(Kallsyms, ZeroAddressesMeanHidden) {
  auto k = Kallsyms::parse(
      "0000000000000000 T _stext\n"
      "0000000000000000 t first_local\n");
  EXPECT_TRUE(k.hidden());
  EXPECT_FALSE(k.lookup(0xffffffff81000000ULL).has_value());
  EXPECT_EQ(kptrRestrictHint(1),
            "kernel symbol addresses are hidden (kernel.kptr_restrict is 1): run: sudo sysctl "
            "kernel.kptr_restrict=0, or record as root");
  EXPECT_FALSE(Kallsyms::parse("").hidden());
}

TEST(Kallsyms, RunningKernel) {
  auto k = Kallsyms::load();
  if (!k.ok()) GTEST_SKIP() << "cannot read /proc/kallsyms: " << k.error().describe();
  if (k->hidden()) GTEST_SKIP() << "kernel addresses are hidden here (kptr_restrict)";
  EXPECT_FALSE(k->empty());
  EXPECT_FALSE(Kallsyms::load("/nonexistent").ok());
}

TEST(Kallsyms, SymbolizerNamesKernelFrames) {
  // The address of vfs_read, as the running kernel lists it.
  std::ifstream in("/proc/kallsyms");
  std::string line;
  uint64_t addr = 0;
  while (std::getline(in, line)) {
    if (line.size() > 19 && line.substr(16) == " T vfs_read") {
      addr = std::stoull(line.substr(0, 16), nullptr, 16);
      break;
    }
  }
  if (addr == 0) GTEST_SKIP() << "vfs_read is not listed with an address in /proc/kallsyms";
  model::Profile p;
  model::ModuleId k = p.internModule(kKernelModule, "");
  model::LocationId l = p.internLocation(k, addr + 4, addr + 4);
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  const model::Location& loc = p.locations()[l];
  ASSERT_EQ(loc.lines.size(), 1u);
  EXPECT_EQ(p.str(p.functions()[loc.lines[0].function].name), "vfs_read");
  EXPECT_TRUE(s.warnings().empty());
}

TEST(Kallsyms, HiddenAddressesNameKernelFramesKernelAndWarn) {
  std::string path = ::testing::TempDir() + "/kallsyms_hidden";
  {
    std::ofstream out(path);
    out << "0000000000000000 T _stext\n0000000000000000 t vfs_read\n";
  }
  model::Profile p;
  model::ModuleId k = p.internModule(kKernelModule, "");
  model::LocationId a = p.internLocation(k, 0xffffffff81000010ULL, 0xffffffff81000010ULL);
  model::LocationId b = p.internLocation(k, 0xffffffff81000abcULL, 0xffffffff81000abcULL);
  Symbolizer s;
  s.setKallsymsPath(path);
  ASSERT_TRUE(s.symbolize(p).ok());
  for (model::LocationId l : {a, b}) {
    ASSERT_EQ(p.locations()[l].lines.size(), 1u);
    EXPECT_EQ(p.str(p.functions()[p.locations()[l].lines[0].function].name), "[kernel]");
  }
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_EQ(s.warnings()[0].rfind("kernel symbol addresses are hidden", 0), 0u) << s.warnings()[0];
  std::remove(path.c_str());
}

// The kernel's lines first, sorted (a per-CPU block at 0, text, data), then
// modules' out of order: below, among and above the kernel's, one at the
// address of a kernel symbol.
constexpr std::string_view kSortedWithModules =
    "0000000000000000 A fixed_percpu_data\n"
    "0000000000001000 D cpu_number\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000040 t local_one\n"
    "ffffffff81000080 W weak_one\n"
    "ffffffff81000080 w weak_two\n"
    "ffffffff810000c0 r some_rodata\n"
    "ffffffff81000100 D some_data\n"
    "ffffffff81000200 T after_data\n"
    "ffffffff81000300 t last_text\n"
    "ffffffff81000400 b some_bss\n"
    "ffffffff81000500 B _end\n"
    "ffffffffc0002000 t mod_b\t[beta]\n"
    "ffffffffc0001000 T mod_a\t[alpha]\n"
    "ffffffffc0001000 d mod_data\t[alpha]\n"
    "ffffffff81000080 t mod_at_weak\t[gamma]\n"
    "ffffffff81000250 t mod_among\t[gamma]\n"
    "ffffffff80000000 t mod_below\t[delta]\n"
    "ffffffffc0003000 t bpf_prog_1234_run\t[bpf]\n";

TEST(Kallsyms, IndexAnswersAsWholeParse) {
  expectIndexedAsWhole(kSortedWithModules, true, "sorted kernel, modules");
  const Kallsyms k = Kallsyms::parse(kSortedWithModules);
  EXPECT_EQ(k.lookup(0xffffffff81000000ULL), "_text");  // the last at its address
  EXPECT_EQ(k.lookup(0xffffffff81000040ULL), "local_one");
  EXPECT_EQ(k.lookup(0xffffffff81000090ULL), "mod_at_weak [gamma]");  // after weak_two
  EXPECT_EQ(k.lookup(0xffffffff81000110ULL), "mod_at_weak [gamma]");  // data names no code
  EXPECT_EQ(k.lookup(0xffffffff81000260ULL), "mod_among [gamma]");
  EXPECT_EQ(k.lookup(0xffffffff81000600ULL), "last_text");
  EXPECT_EQ(k.lookup(0xffffffff80000010ULL), "mod_below [delta]");
  EXPECT_EQ(k.lookup(0xffffffffc0001004ULL), "mod_a [alpha]");
  EXPECT_FALSE(k.lookup(0xffffffff7fffffffULL).has_value());
  auto r = k.range(0xffffffff81000310ULL);  // the kernel's last: ends at a module's
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->start, 0xffffffff81000300ULL);
  EXPECT_EQ(r->end, 0xffffffffc0001000ULL);
  r = k.range(0xffffffff80000010ULL);  // a module's below the kernel: ends at _stext
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->start, 0xffffffff80000000ULL);
  EXPECT_EQ(r->end, 0xffffffff81000000ULL);
  r = k.range(0xffffffff81000210ULL);  // the kernel's: ends at a module's among them
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->start, 0xffffffff81000200ULL);
  EXPECT_EQ(r->end, 0xffffffff81000250ULL);
  EXPECT_FALSE(k.range(0xffffffffc0003000ULL).has_value());  // the last one
}

TEST(Kallsyms, IndexEdgeCases) {
  expectIndexedAsWhole("", true, "empty");
  expectIndexedAsWhole("\n", true, "one empty line");
  expectIndexedAsWhole("\n\n\n", true, "empty lines");
  expectIndexedAsWhole(
      "ffffffffc0002000 t mod_b\t[beta]\n"
      "ffffffffc0001000 T mod_a\t[alpha]\n"
      "ffffffffc0001800 t \t[alpha]\n",
      true, "modules only");
  expectIndexedAsWhole(
      "0000000000000000 T _stext\n"
      "0000000000000000 t first_local\n"
      "0000000000000000 D some_data\n"
      "0000000000000000 t mod_func\t[ext4]\n",
      true, "hidden");
  EXPECT_TRUE(Kallsyms::parse("0000000000000000 T _stext\n0000000000000000 t x\t[m]\n").hidden());
  expectIndexedAsWhole(
      "ffffffff81000000 D data_first\n"
      "ffffffff81000010 T code\n"
      "ffffffff81000020 D data_last\n"
      "ffffffffc0000000 d mod_data_first\t[m]\n"
      "ffffffffc0000010 t mod_code\t[m]\n"
      "ffffffffc0000020 d mod_data_last\t[m]\n",
      true, "data at the ends");
  expectIndexedAsWhole(
      "ffffffff81000000 D data_only\n"
      "ffffffff81000010 b more_data\n",
      true, "no text symbol");
  EXPECT_TRUE(Kallsyms::parse("ffffffff81000000 D data_only\n").empty());
  expectIndexedAsWhole(
      "ffffffff81000000 T\n"
      "ffffffff81000010 T \n"
      "ffffffff81000020 T named\n"
      "not a line\n"
      "\n"
      "ffffffff8100zzzz T bad\n"
      "ffffffff81000030 t  two_spaces\n"
      "ffffffff81000040 TT wide_type\n"
      "ffffffff81000050 t unnamed_after\n"
      "ffffffff81000060 T \n"
      "ffffffffc0000000 t \t[m]\n"
      "ffffffffc0000010 t named_mod\t[m]\n",
      true, "lines without names, malformed lines");
  expectIndexedAsWhole(
      "ffffffff81000000 T a\n"
      "ffffffff81000010 t b\n"
      "ffffffffc0000010 t m\t[m]",
      true, "no newline at the end");
  expectIndexedAsWhole("ffffffff81000000 T a\nffffffff81000010 t b", true,
                       "kernel only, no newline");
}

TEST(Kallsyms, OutOfOrderTextIsParsedWhole) {
  expectIndexedAsWhole(
      "ffffffff81000200 T second\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t first_local\n",
      false, "unsorted kernel");
  // A copy moved to other addresses, in which per-CPU offsets wrapped.
  expectIndexedAsWhole(
      "0000000000000000 A fixed_percpu_data\n"
      "ffffffffd6001000 D cpu_number\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t first_local\n",
      false, "wrapped per-CPU addresses");
  expectIndexedAsWhole(
      "ffffffff81000000 T _stext\n"
      "ffffffffc0000000 t mod_func\t[ext4]\n"
      "ffffffff81000100 t kernel_after_module\n",
      false, "a kernel line after a module's");
  expectIndexedAsWhole(
      "ffffffff81000000 T _stext\n"
      "ffffffffc0000000 t mod_func\t[ext4]\n"
      "ffffffff81000100 t kernel_after_module\n"
      "ffffffffc0000100 t mod_func2\t[ext4]\n",
      false, "a module's line among the kernel's");
}

// A kernel part of `lines` lines in order (per-CPU offsets, text and data in
// runs of up to `run` lines, ties, malformed and nameless lines), then
// modules' lines in no order.
std::string syntheticKallsyms(size_t lines, size_t run, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream out;
  char buf[32];
  auto hex = [&](uint64_t a) {
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(a));
    return std::string(buf);
  };
  for (uint64_t a = 0; a < 0x4000; a += 0x40) out << hex(a) << " A percpu_" << a << "\n";
  uint64_t a = 0xffffffff81000000ULL;
  size_t n = 0;
  std::vector<uint64_t> kernel;
  while (n < lines) {
    const bool code = rng() % 2 == 0;
    const size_t len = 1 + rng() % run;
    for (size_t i = 0; i < len && n < lines; ++i, ++n) {
      a += rng() % 4 == 0 ? 0 : rng() % 0x100;  // a quarter share an address
      kernel.push_back(a);
      const char* types = code ? "tTwW" : "dDbBrRA";
      const char type = types[rng() % (code ? 4 : 7)];
      switch (rng() % 64) {
        case 0:
          out << "garbage line " << n << "\n";
          break;
        case 1:
          out << hex(a) << " " << type << " \n";
          break;
        case 2:
          out << "\n";
          break;
        default:
          out << hex(a) << " " << type << " sym_" << n << "\n";
      }
    }
  }
  for (size_t i = 0; i < lines / 8; ++i) {
    uint64_t m = 0;
    switch (rng() % 4) {
      case 0:
        m = kernel[rng() % kernel.size()];  // at a kernel symbol's address
        break;
      case 1:
        m = kernel[rng() % kernel.size()] + 1 + rng() % 0x80;  // among them
        break;
      default:
        m = 0xffffffffc0000000ULL + rng() % 0x1000000;  // above
    }
    const char type = "tTdb"[rng() % 4];
    out << hex(m) << " " << type << " mod_" << i << "\t[mod" << i % 7 << "]\n";
  }
  return out.str();
}

TEST(Kallsyms, IndexAnswersAsWholeParseOnLargeTexts) {
  // Larger than the 16 KiB checked at each end of the kernel part.
  for (uint64_t seed : {1, 2, 3}) {
    expectIndexedAsWhole(syntheticKallsyms(10000, 60, seed), true,
                         "synthetic, seed " + std::to_string(seed));
  }
  expectIndexedAsWhole(syntheticKallsyms(10000, 4, 4), true, "synthetic, short runs");
  // Runs of thousands of data lines, as a kernel built with
  // CONFIG_KALLSYMS_ALL lists them: an address among them is found by a walk
  // over the run (each of the probes asked).
  expectIndexedAsWhole(syntheticKallsyms(20000, 5000, 6), true, "synthetic, long runs", 41);
  // Out of order near the end of the kernel part: parsed whole.
  std::string text = syntheticKallsyms(20000, 20, 5);
  const size_t modules = text.find('\t');
  const size_t last = text.rfind('\n', text.rfind('\n', modules) - 1) + 1;
  text.replace(last, 16, "ffffffff80000000");
  expectIndexedAsWhole(text, false, "synthetic, last kernel line out of order");
}

TEST(Kallsyms, RunningKernelIndexAnswersAsWholeParse) {
  std::ifstream in("/proc/kallsyms");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  if (!in || text.empty()) GTEST_SKIP() << "cannot read /proc/kallsyms";
  // A copy in a file, as perf's build-id cache keeps one: mapped.
  const std::string path = ::testing::TempDir() + "/kallsyms_copy";
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  auto k = Kallsyms::load(path);
  std::remove(path.c_str());
  ASSERT_TRUE(k.ok()) << k.error().describe();
  if (k->hidden()) GTEST_SKIP() << "kernel addresses are hidden here (kptr_restrict)";
  EXPECT_TRUE(k->indexed()) << "this kernel's own lines do not look sorted";
  expectAnswersOfWholeParse(*k, text, "/proc/kallsyms");
}

}  // namespace
}  // namespace strobe::symbolize
