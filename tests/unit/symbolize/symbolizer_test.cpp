#include "symbolize/symbolizer.hpp"

#include <fstream>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "fixture_tools.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/perf_map.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {
namespace {

using model::LocationId;
using model::Profile;

struct Expect {
  const char* symbol;
  const char* name;  // demangled
  const char* mark;
};

// Interns a location at `symbol + delta` of `bin`, as the recorder would:
// by file offset (computed with readelf's segments, not ours).
LocationId locationAt(Profile& p, model::ModuleId m, const char* bin, const char* symbol,
                      uint64_t delta, uint64_t* svma_out = nullptr) {
  auto nm = testing::nmSymbols(bin);
  EXPECT_TRUE(nm.count(symbol)) << symbol;
  uint64_t svma = nm[symbol] + delta;
  uint64_t off = testing::svmaToOffset(testing::readelfLoads(bin), svma);
  EXPECT_NE(off, UINT64_MAX);
  if (svma_out != nullptr) *svma_out = svma;
  return p.internLocation(m, off, 0x7f0000000000ULL + off);
}

void expectSymbolized(const char* bin, const char* source, const std::vector<Expect>& fns) {
  Profile p;
  model::ModuleId m = p.internModule(bin, "");
  std::vector<LocationId> ids;
  std::vector<uint64_t> svmas;
  for (const Expect& e : fns) {
    uint64_t svma = 0;
    ids.push_back(locationAt(p, m, bin, e.symbol, 4, &svma));
    svmas.push_back(svma);
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_TRUE(s.warnings().empty());
  EXPECT_EQ(s.buildIdOf(m), testing::readelfBuildId(bin));
  auto reference = testing::addr2line(bin, svmas);
  ASSERT_EQ(reference.size(), fns.size());
  for (size_t i = 0; i < fns.size(); ++i) {
    const model::Location& loc = p.locations()[ids[i]];
    ASSERT_EQ(loc.lines.size(), 1U) << fns[i].symbol;
    const model::Function& fn = p.functions()[loc.lines[0].function];
    EXPECT_EQ(p.str(fn.name), fns[i].name);
    EXPECT_EQ(p.str(fn.system_name), fns[i].symbol);
    EXPECT_EQ(p.str(fn.file), source);
    EXPECT_EQ(fn.start_line, testing::markLine(source, fns[i].mark)) << fns[i].symbol;
    EXPECT_EQ(reference[i].file, source);
    EXPECT_EQ(loc.lines[0].line, reference[i].line) << fns[i].symbol;
    EXPECT_NE(loc.lines[0].line, 0U);
  }
}

TEST(SymbolizerTest, FillsFunctionsAndLinesPie) {
  expectSymbolized(
      SYMFIX_PIE, SYMFIX_SOURCE,
      {{"fixture_leaf", "fixture_leaf", "leaf"},
       {"_ZN7fixture6scaledIiEET_S1_i", "int fixture::scaled<int>(int, int)", "scaled"},
       {"_ZL12fixtureLocali", "fixtureLocal(int)", "local"}});
}

TEST(SymbolizerTest, FillsFunctionsAndLinesNonPie) {
  expectSymbolized(
      SYMFIX_NOPIE, SYMFIX_SOURCE,
      {{"fixture_leaf", "fixture_leaf", "leaf"},
       {"_ZN7fixture6scaledIdEET_S1_i", "double fixture::scaled<double>(double, int)", "scaled"}});
}

TEST(SymbolizerTest, FillsFunctionsAndLinesSharedLibrary) {
  expectSymbolized(
      SYMFIX_LIB, SYMFIX_LIB_SOURCE,
      {{"fixture_lib_add", "fixture_lib_add", "lib_add"},
       {"_ZN11fixture_lib7Counter4bumpEi", "fixture_lib::Counter::bump(int)", "bump"}});
}

// A long-running Symbolizer (strobe agent) lets go of the module files no
// recent batch used, and of the least recently used beyond its bound; a
// module needed again is opened again and names as before.
TEST(SymbolizerTest, ForgetsModulesNoRecentBatchUsed) {
  auto profileOf = [](const char* bin, const char* symbol) {
    Profile p;
    model::ModuleId m = p.internModule(bin, "");
    locationAt(p, m, bin, symbol, 4);
    return p;
  };
  auto nameIn = [](Symbolizer& s, Profile p) {
    EXPECT_TRUE(s.symbolize(p).ok());
    const model::Location& loc = p.locations()[0];
    return loc.lines.empty() ? std::string() : p.str(p.functions()[loc.lines[0].function].name);
  };
  Symbolizer s;
  EXPECT_EQ(nameIn(s, profileOf(SYMFIX_PIE, "fixture_leaf")), "fixture_leaf");
  EXPECT_EQ(nameIn(s, profileOf(SYMFIX_LIB, "fixture_lib_add")), "fixture_lib_add");
  EXPECT_EQ(s.cachedModules(), 2u);
  EXPECT_EQ(s.forgetUnused(1, 10), 0u);  // both used by the last two batches
  EXPECT_EQ(s.forgetUnused(0, 10), 1u);  // the PIE's batch was not the last
  EXPECT_EQ(s.cachedModules(), 1u);
  EXPECT_EQ(nameIn(s, profileOf(SYMFIX_PIE, "fixture_leaf")), "fixture_leaf");  // opened again
  EXPECT_EQ(s.cachedModules(), 2u);
  EXPECT_EQ(s.forgetUnused(10, 1), 1u);  // the least recently used one beyond the bound
  EXPECT_EQ(s.cachedModules(), 1u);
  EXPECT_EQ(nameIn(s, profileOf(SYMFIX_PIE, "fixture_leaf")), "fixture_leaf");
  EXPECT_EQ(s.cachedModules(), 1u);  // the PIE was the one kept
}

// Every byte of fixtureLocal, which has fixtureInlined (from a header)
// inlined: the chain matches addr2line -i level by level (file and line),
// the inlined level names fixtureInlined with the header as its file, and
// the outermost level is always fixtureLocal.
void expectInlineChains(const char* bin) {
  auto nm = testing::nmSymbols(bin);
  uint64_t start = nm["_ZL12fixtureLocali"];
  Profile p;
  model::ModuleId m = p.internModule(bin, "");
  auto loads = testing::readelfLoads(bin);
  std::vector<uint64_t> svmas;
  std::vector<LocationId> ids;
  auto elf = ElfFile::open(bin);
  ASSERT_TRUE(elf.ok());
  auto sym = SymbolTable::read(*elf).lookup(Svma(start));
  ASSERT_TRUE(sym.has_value());
  for (uint64_t a = start; a < start + sym->size; ++a) {
    svmas.push_back(a);
    ids.push_back(p.internLocation(m, testing::svmaToOffset(loads, a), a));
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  auto reference = testing::addr2lineInline(bin, svmas);
  ASSERT_EQ(reference.size(), ids.size());
  size_t inlined = 0;
  uint32_t body = testing::markLine(
      std::string(SYMFIX_SOURCE).substr(0, std::string(SYMFIX_SOURCE).rfind('/')) +
          "/sym_fixture_inline.hpp",
      "inlined_body");
  for (size_t i = 0; i < ids.size(); ++i) {
    const model::Location& loc = p.locations()[ids[i]];
    ASSERT_EQ(loc.lines.size(), reference[i].size()) << bin << " +" << i;
    const model::Function& outer = p.functions()[loc.lines.back().function];
    EXPECT_EQ(p.str(outer.name), "fixtureLocal(int)");
    EXPECT_EQ(p.str(outer.file), SYMFIX_SOURCE);
    for (size_t k = 0; k < loc.lines.size(); ++k) {
      const model::Function& fn = p.functions()[loc.lines[k].function];
      EXPECT_EQ(p.str(fn.file), reference[i][k].file) << bin << " +" << i << " level " << k;
      EXPECT_EQ(loc.lines[k].line, reference[i][k].line) << bin << " +" << i << " level " << k;
    }
    if (loc.lines.size() == 2) {
      ++inlined;
      const model::Function& inner = p.functions()[loc.lines[0].function];
      EXPECT_EQ(p.str(inner.name), "fixtureInlined(int)");
      EXPECT_EQ(p.str(inner.system_name), "_Z14fixtureInlinedi");
      EXPECT_NE(p.str(inner.file).find("sym_fixture_inline.hpp"), std::string::npos);
      EXPECT_EQ(loc.lines[1].line, testing::markLine(SYMFIX_SOURCE, "call_inlined"));
      if (loc.lines[0].line == body) ++inlined;
    }
  }
  EXPECT_GT(inlined, 0U) << bin;
}

TEST(SymbolizerTest, InlinedCodeGivesTheWholeChain) {
  expectInlineChains(SYMFIX_NOPIE);
  expectInlineChains(SYMFIX_PIE);
}

TEST(SymbolizerTest, StrippedLibraryGivesNamesWithoutLines) {
  Profile p;
  model::ModuleId m = p.internModule(SYMFIX_LIB_STRIPPED, "");
  LocationId id = locationAt(p, m, SYMFIX_LIB, "_ZN11fixture_lib7Counter4bumpEi", 2);
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  const model::Location& loc = p.locations()[id];
  ASSERT_EQ(loc.lines.size(), 1U);
  const model::Function& fn = p.functions()[loc.lines[0].function];
  EXPECT_EQ(p.str(fn.name), "fixture_lib::Counter::bump(int)");
  EXPECT_EQ(p.str(fn.file), "");
  EXPECT_EQ(fn.start_line, 0U);
  EXPECT_EQ(loc.lines[0].line, 0U);
}

TEST(SymbolizerTest, UnresolvableOffsetsStayEmpty) {
  Profile p;
  model::ModuleId m = p.internModule(SYMFIX_PIE, "");
  LocationId header = p.internLocation(m, 0x10, 0x1000);         // ELF header: no symbol
  LocationId outside = p.internLocation(m, 1ULL << 40, 0x2000);  // in no segment
  LocationId unmapped = p.internLocation(model::kNone, 0, 0x3000);
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_TRUE(p.locations()[header].lines.empty());
  EXPECT_TRUE(p.locations()[outside].lines.empty());
  EXPECT_TRUE(p.locations()[unmapped].lines.empty());
  EXPECT_TRUE(s.warnings().empty());
}

TEST(SymbolizerTest, PseudoModulesAreSkippedQuietly) {
  Profile p;
  std::vector<LocationId> ids;
  for (const char* path : {"[vdso]", "[stack]", "[heap]", "[anon:jit]", "//anon",
                           "/memfd:jit (deleted)", "/dev/zero (deleted)", ""}) {
    ids.push_back(p.internLocation(p.internModule(path, ""), 0x10, 0x10));
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_TRUE(s.warnings().empty());
  for (LocationId id : ids) EXPECT_TRUE(p.locations()[id].lines.empty());
}

TEST(SymbolizerTest, UnusableFilesWarnOncePerModule) {
  testing::TempFile text(std::vector<char>(100, 'x'));
  Profile p;
  model::ModuleId missing = p.internModule("/nonexistent/libgone.so", "");
  model::ModuleId not_elf = p.internModule(text.path(), "");
  model::ModuleId deleted = p.internModule("/usr/lib/libold.so (deleted)", "");
  for (uint64_t off : {0x1000, 0x1100, 0x1200}) {
    p.internLocation(missing, off, off);
    p.internLocation(not_elf, off, off);
    p.internLocation(deleted, off, off);
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  ASSERT_EQ(s.warnings().size(), 3U);
  EXPECT_NE(s.warnings()[0].find("/nonexistent/libgone.so"), std::string::npos);
  EXPECT_NE(s.warnings()[1].find(text.path()), std::string::npos);
  EXPECT_NE(s.warnings()[2].find("deleted"), std::string::npos);
  for (const model::Location& loc : p.locations()) EXPECT_TRUE(loc.lines.empty());

  // Remembered: a later call (a live view) does not warn again.
  p.internLocation(missing, 0x1300, 0x1300);
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_TRUE(s.warnings().empty());
}

TEST(SymbolizerTest, BuildIds) {
  Profile p;
  model::ModuleId from_file = p.internModule(SYMFIX_PIE, "");
  model::ModuleId mismatch = p.internModule(SYMFIX_NOPIE, "00112233");
  model::ModuleId untouched = p.internModule(SYMFIX_LIB, "");
  LocationId a = locationAt(p, from_file, SYMFIX_PIE, "fixture_leaf", 1);
  LocationId b = locationAt(p, mismatch, SYMFIX_NOPIE, "fixture_leaf", 1);
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_EQ(s.buildIdOf(from_file), testing::readelfBuildId(SYMFIX_PIE));
  EXPECT_EQ(s.buildIdOf(mismatch), "00112233");  // the recorded one is kept
  EXPECT_EQ(s.buildIdOf(untouched), "");         // no locations: file not opened
  EXPECT_EQ(s.buildIdOf(99), "");
  EXPECT_FALSE(p.locations()[a].lines.empty());
  EXPECT_TRUE(p.locations()[b].lines.empty());  // a different binary: not trusted
  ASSERT_EQ(s.warnings().size(), 1U);
  EXPECT_NE(s.warnings()[0].find("build-id"), std::string::npos);
}

TEST(SymbolizerTest, SymbolizedLocationsAreLeftAlone) {
  Profile p;
  model::ModuleId m = p.internModule(SYMFIX_PIE, "");
  LocationId id = locationAt(p, m, SYMFIX_PIE, "fixture_leaf", 1);
  model::FunctionId preset = p.internFunction("preset", "preset", "x.c", 1);
  p.mutableLocations()[id].lines.push_back(model::Line{preset, 7});
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  ASSERT_EQ(p.locations()[id].lines.size(), 1U);
  EXPECT_EQ(p.locations()[id].lines[0].function, preset);
}

TEST(SymbolizerTest, UnknownModuleIdsAreReported) {
  Profile p;
  model::ModuleId m = p.internModule(SYMFIX_PIE, "");
  LocationId good = locationAt(p, m, SYMFIX_PIE, "fixture_leaf", 1);
  p.mutableLocations().push_back(model::Location{42, 0x1000, 0x1000, {}});
  Symbolizer s;
  Status st = s.symbolize(p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
  EXPECT_FALSE(p.locations()[good].lines.empty());  // the others are still done
}

// Modules are resolved on several threads, then interned in location order:
// the Profile (strings, functions, lines), the warnings and the build-ids are
// the same as with one thread. Locations of five files (one under two module
// ids), a missing file, a pseudo module and a kernel-less profile are
// interleaved; a second call adds locations (a live view).
TEST(SymbolizerTest, ThreadsGiveTheSameProfileAsOne) {
  const std::vector<std::string> files = {SYMFIX_PIE, SYMFIX_LIB, SYMFIX_NOPIE, SYMFIX_LIB_STRIPPED,
                                          SYMFIX_PIE_NOARANGES};
  auto build = [&](Profile& p, uint64_t from, uint64_t to) {
    std::vector<model::ModuleId> ids;
    for (const std::string& f : files) ids.push_back(p.internModule(f, ""));
    ids.push_back(p.internModule(files[0] + "", "x"));  // same file, other build-id: a warning
    ids.push_back(p.internModule("/nonexistent/libgone.so", ""));
    ids.push_back(p.internModule("[vdso]", ""));
    for (uint64_t off = from; off < to; off += 5) {
      for (model::ModuleId m : ids) p.internLocation(m, off, 0x7f0000000000ULL + off);
    }
  };
  auto dump = [](const Profile& p, const Symbolizer& s) {
    std::string out;
    for (const std::string& w : s.warnings()) out += "W " + w + "\n";
    for (size_t i = 0; i < p.modules().size(); ++i) {
      out += "B " + std::string(s.buildIdOf(static_cast<model::ModuleId>(i))) + "\n";
    }
    for (const model::Function& f : p.functions()) {
      out += "F " + p.str(f.name) + "|" + p.str(f.system_name) + "|" + p.str(f.file) + "|" +
             std::to_string(f.start_line) + "\n";
    }
    for (const model::Location& loc : p.locations()) {
      out += "L";
      for (const model::Line& l : loc.lines) {
        out += " " + std::to_string(l.function) + ":" + std::to_string(l.line);
      }
      out += "\n";
    }
    return out;
  };
  Profile one;
  Profile many;
  SymbolizerOptions serial;
  serial.threads = 1;
  SymbolizerOptions parallel;
  parallel.threads = 4;
  Symbolizer s1(serial);
  Symbolizer s4(parallel);
  size_t resolved = 0;
  for (auto [from, to] : {std::pair<uint64_t, uint64_t>{0, 0x3000}, {0x3000, 0x6000}}) {
    build(one, from, to);
    build(many, from, to);
    ASSERT_TRUE(s1.symbolize(one).ok());
    ASSERT_TRUE(s4.symbolize(many).ok());
    EXPECT_EQ(dump(one, s1), dump(many, s4));
  }
  for (const model::Location& loc : many.locations()) resolved += loc.lines.empty() ? 0 : 1;
  EXPECT_GT(resolved, 100U);
  EXPECT_GT(many.functions().size(), 10U);
}

}  // namespace
}  // namespace strobe::symbolize

namespace strobe::symbolize {
namespace {

// A live view resolves a batch on another thread while the profile grows:
// finish() fills the batch's locations and leaves the later ones for the
// next batch, with the same answers symbolize() gives.
TEST(SymbolizerTest, BatchesResolvedWhileTheProfileGrows) {
  Profile p;
  model::ModuleId m = p.internModule(SYMFIX_PIE, "");
  LocationId first = locationAt(p, m, SYMFIX_PIE, "fixture_leaf", 4);
  Symbolizer s;
  Symbolizer::BatchPtr batch = s.begin(p);
  EXPECT_TRUE(Symbolizer::hasWork(*batch));
  std::thread resolver([&] { s.resolve(*batch); });
  LocationId later = locationAt(p, m, SYMFIX_PIE, "_ZN7fixture6scaledIiEET_S1_i", 4);
  resolver.join();
  ASSERT_TRUE(s.finish(p, *batch).ok());
  ASSERT_EQ(p.locations()[first].lines.size(), 1U);
  EXPECT_EQ(p.str(p.functions()[p.locations()[first].lines[0].function].name), "fixture_leaf");
  EXPECT_TRUE(p.locations()[later].lines.empty()) << "added after begin(): the next batch's";

  Symbolizer::BatchPtr next = s.begin(p);
  s.resolve(*next);
  ASSERT_TRUE(s.finish(p, *next).ok());
  ASSERT_EQ(p.locations()[later].lines.size(), 1U);
  EXPECT_EQ(p.str(p.functions()[p.locations()[later].lines[0].function].name),
            "int fixture::scaled<int>(int, int)");
  EXPECT_FALSE(Symbolizer::hasWork(*s.begin(p))) << "nothing left to resolve";
}

TEST(PerfMapTest, ParsesLinesAndSkipsGarbage) {
  PerfMap m = PerfMap::parse(
      "7f0000001000 40 LazyCompile:*add /app/x.js:3\n"
      "0x7f0000002000 0x10 _ZN3jit4stubEv\r\n"
      "nonsense\n"
      "7f0000003000 zz bad size\n"
      "7f0000004000 0 empty\n"
      "7f0000001020 8 reused\n"
      "7f0000005000 10");
  EXPECT_EQ(m.size(), 3U);
  EXPECT_EQ(m.lookup(0x7f0000001000).value_or(""), "LazyCompile:*add /app/x.js:3");
  EXPECT_EQ(m.lookup(0x7f0000001024).value_or(""), "reused");  // written later wins
  EXPECT_EQ(m.lookup(0x7f000000103f).value_or(""), "LazyCompile:*add /app/x.js:3");
  EXPECT_EQ(m.lookup(0x7f000000200f).value_or(""), "_ZN3jit4stubEv");
  EXPECT_FALSE(m.lookup(0x7f0000001040).has_value());
  EXPECT_FALSE(m.lookup(0x7f0000004000).has_value());
  EXPECT_FALSE(m.lookup(0).has_value());
}

TEST(SymbolizerTest, JitFramesFromTheProfilesJitTable) {
  // What a perf map said, as the recorder copied it into the profile.
  Profile p;
  p.meta().pid = 4242;
  for (auto [start, size, name] : {std::tuple<uint64_t, uint64_t, const char*>{
                                       0x7f0000001000, 0x40, "LazyCompile:*add /app/x.js:3"},
                                   {0x7f0000002000, 0x10, "_ZN3jit4stubEv"}}) {
    model::JitCode c;
    c.pid = 4242;
    c.start = start;
    c.size = size;
    c.name = p.internString(name);
    c.source = model::JitSource::kPerfMap;
    p.addJitCode(std::move(c));
  }
  model::ModuleId anon = p.internModule("//anon", "");
  LocationId unmapped = p.internLocation(model::kNone, 0x7f0000001010, 0x7f0000001010);
  LocationId in_anon = p.internLocation(anon, 0x10, 0x7f0000002004);
  LocationId unknown = p.internLocation(anon, 0x90000, 0x7f0000090000);
  for (LocationId l : {unmapped, in_anon, unknown}) {
    p.addSample(model::Sample{5, 4242, 0, p.internStack(model::kNone, l), 1});
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  auto leaf = [&](size_t i) -> const model::Location& {
    return p.locations()[p.stacks()[p.samples()[i].stack].location];
  };
  ASSERT_EQ(leaf(0).lines.size(), 1U);
  const model::Function& js = p.functions()[leaf(0).lines[0].function];
  EXPECT_EQ(p.str(js.name), "LazyCompile:*add /app/x.js:3");
  EXPECT_EQ(p.moduleName(leaf(0).module), "[JIT]");
  ASSERT_EQ(leaf(1).lines.size(), 1U);
  const model::Function& stub = p.functions()[leaf(1).lines[0].function];
  EXPECT_EQ(p.str(stub.name), "jit::stub()");
  EXPECT_EQ(p.str(stub.system_name), "_ZN3jit4stubEv");
  EXPECT_TRUE(leaf(2).lines.empty());
  EXPECT_TRUE(p.locations()[unmapped].lines.empty()) << "its sample moved to a [JIT] location";

  // Another process's code is not used.
  Profile other = p;
  other.meta().pid = 4243;
  for (model::Location& l : other.mutableLocations()) l.lines.clear();
  for (model::Sample& x : other.mutableSamples()) {
    x.tid = 4243;
    x.stack = other.internStack(model::kNone, unmapped);
  }
  Symbolizer s2;
  ASSERT_TRUE(s2.symbolize(other).ok());
  EXPECT_TRUE(other.locations()[unmapped].lines.empty());
}

}  // namespace
}  // namespace strobe::symbolize
