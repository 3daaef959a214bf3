// Kallsyms on crafted /proc/kallsyms text and on the running kernel's.
#include "symbolize/kallsyms.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

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
  EXPECT_EQ(k.size(), 4u);
  EXPECT_EQ(k.lookup(0xffffffff81000000ULL), "_stext");
  EXPECT_EQ(k.lookup(0xffffffff81000150ULL), "first_local");
  EXPECT_EQ(k.lookup(0xffffffff81000200ULL), "second");
  EXPECT_EQ(k.lookup(0xffffffffc0000010ULL), "mod_func [ext4]");
  EXPECT_FALSE(k.lookup(0xffffffff80000000ULL).has_value());
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
  EXPECT_GT(k->size(), 1000u);
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

}  // namespace
}  // namespace strobe::symbolize
