// Symbolizer::keepCode(): the code kept of the functions that hold self
// samples, checked against binutils (nm -S for the symbol's range, readelf's
// segments for its file offset, the file's own bytes, addr2line for the
// line rows).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "fixture_tools.hpp"
#include "model/code.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

// `nm -S`: the stated size of a defined symbol, 0 when absent.
uint64_t nmSize(const std::string& bin, const std::string& symbol) {
  std::istringstream in(testing::runCommand("nm -S --defined-only '" + bin + "'"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string addr, size, type, name;
    if ((row >> addr >> size >> type >> name) && name == symbol) {
      return std::strtoull(size.c_str(), nullptr, 16);
    }
  }
  return 0;
}

std::vector<uint8_t> fileBytes(const std::string& path, uint64_t offset, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::vector<uint8_t> out(size);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(size));
  return out;
}

struct Placed {
  model::LocationId id;
  uint64_t svma;
  uint64_t offset;
};

Placed place(model::Profile& p, model::ModuleId m, const char* bin, const char* symbol,
             uint64_t delta) {
  uint64_t svma = testing::nmSymbols(bin)[symbol] + delta;
  uint64_t off = testing::svmaToOffset(testing::readelfLoads(bin), svma);
  return {p.internLocation(m, off, 0x7f0000000000ULL + off), svma, off};
}

TEST(KeepCodeTest, FunctionsHoldingSelfSamples) {
  model::Profile p;
  model::ModuleId m = p.internModule(SYMFIX_PIE, "");
  Placed leaf = place(p, m, SYMFIX_PIE, "fixture_leaf", 6);
  Placed caller = place(p, m, SYMFIX_PIE, "_ZL12fixtureLocali", 4);
  // fixture_leaf is sampled (as the leaf); fixtureLocal only as its caller.
  model::StackId s = p.internStack(p.internStack(model::kNone, caller.id), leaf.id);
  p.addSample({1, 1, 0, s, 1000});
  p.addSample({2, 1, 0, s, 1000});
  Symbolizer sym;
  ASSERT_TRUE(sym.symbolize(p).ok());
  const uint64_t kept = sym.keepCode(p);
  ASSERT_EQ(p.code().size(), 1u);
  const model::FunctionCode& c = p.code()[0];
  const uint64_t start = testing::nmSymbols(SYMFIX_PIE)["fixture_leaf"];
  const uint64_t size = nmSize(SYMFIX_PIE, "fixture_leaf");
  ASSERT_GT(size, 0u);
  EXPECT_EQ(kept, size);
  EXPECT_EQ(c.module, m);
  EXPECT_EQ(c.address, start);
  EXPECT_EQ(c.size, size);
  EXPECT_EQ(c.offset, testing::svmaToOffset(testing::readelfLoads(SYMFIX_PIE), start));
  EXPECT_EQ(c.offset, leaf.offset - 6);
  EXPECT_EQ(c.bytes, fileBytes(SYMFIX_PIE, c.offset, size));
  EXPECT_EQ(c.checksum, model::codeChecksum(c.bytes));
#if defined(__x86_64__)
  EXPECT_EQ(c.arch, "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(c.arch, "aarch64");
#endif
  ASSERT_NE(c.function, model::kNone);
  EXPECT_EQ(p.str(p.functions()[c.function].name), "fixture_leaf");
  // Line rows: each as addr2line says of its first address.
  ASSERT_FALSE(c.lines.empty());
  EXPECT_EQ(c.lines[0].offset, 0u);
  std::vector<uint64_t> addrs;
  for (const model::CodeLine& l : c.lines) addrs.push_back(start + l.offset);
  auto reference = testing::addr2lineInline(SYMFIX_PIE, addrs);
  ASSERT_EQ(reference.size(), c.lines.size());
  for (size_t i = 0; i < c.lines.size(); ++i) {
    if (c.lines[i].line == 0) continue;
    ASSERT_FALSE(reference[i].empty());
    EXPECT_EQ(c.lines[i].line, reference[i][0].line) << "row at +" << c.lines[i].offset;
    EXPECT_EQ(p.str(c.lines[i].file), reference[i][0].file);
    EXPECT_LT(c.lines[i].offset, size);
    if (i > 0) {
      EXPECT_GT(c.lines[i].offset, c.lines[i - 1].offset);
    }
  }
  // A second call adds nothing.
  EXPECT_EQ(sym.keepCode(p), 0u);
  EXPECT_EQ(p.code().size(), 1u);
}

TEST(KeepCodeTest, KernelFunctionsKeepTheirRangeOnly) {
  std::string path = ::testing::TempDir() + "keep_code_kallsyms";
  {
    std::ofstream out(path);
    out << "ffffffff81000000 T _stext\n"
           "ffffffff81000100 T do_work\n"
           "ffffffff81000300 t next_fn\n";
  }
  model::Profile p;
  model::ModuleId k = p.internModule("[kernel.kallsyms]", "");
  const uint64_t at = 0xffffffff81000150ULL;
  model::LocationId l = p.internLocation(k, at, at);
  p.addSample({1, 1, 0, p.internStack(model::kNone, l), 1000});
  Symbolizer sym;
  sym.setKallsymsPath(path);
  ASSERT_TRUE(sym.symbolize(p).ok());
  EXPECT_EQ(sym.keepCode(p), 0u);
  ASSERT_EQ(p.code().size(), 1u);
  const model::FunctionCode& c = p.code()[0];
  EXPECT_EQ(c.offset, 0xffffffff81000100ULL);
  EXPECT_EQ(c.address, 0xffffffff81000100ULL);
  EXPECT_EQ(c.size, 0x200u);
  EXPECT_TRUE(c.bytes.empty());
  EXPECT_EQ(c.checksum, 0u);
  ASSERT_NE(c.function, model::kNone);
  EXPECT_EQ(p.str(p.functions()[c.function].name), "do_work");
  std::remove(path.c_str());
}

TEST(KeepCodeTest, NothingForUnreadableModules) {
  model::Profile p;
  model::ModuleId m = p.internModule("/nonexistent/strobe/app", "");
  model::LocationId l = p.internLocation(m, 0x1000, 0x7f0000001000);
  p.addSample({1, 1, 0, p.internStack(model::kNone, l), 1000});
  Symbolizer sym;
  ASSERT_TRUE(sym.symbolize(p).ok());
  EXPECT_EQ(sym.keepCode(p), 0u);
  EXPECT_TRUE(p.code().empty());
}

}  // namespace
}  // namespace strobe::symbolize
