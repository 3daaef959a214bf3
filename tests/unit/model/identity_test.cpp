// Function identity: compiler clones are the function they came from, in
// the table, the callers, the call tree; functions that share a name stay
// apart; a line carries its own file; module names that collide show
// their paths; source paths are normalized; low sample counts are flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/aggregate.hpp"
#include "model/call_tree.hpp"
#include "model/callers.hpp"
#include "model/frames.hpp"
#include "model/profile.hpp"
#include "model/symbol_names.hpp"

namespace strobe::model {
namespace {

// main -> run -> run.part.0 (the clone run's header calls) -> leaf, and
// main -> run.isra.0 directly; a real recursion rec -> rec.
struct Clones {
  Profile p;
  FunctionId main, run, part, isra, leaf, rec;
};

Clones clones() {
  Clones c;
  Profile& p = c.p;
  ModuleId m = p.internModule("/bin/app", "");
  c.main = p.internFunction("main", "main", "/src/app.cpp", 10);
  c.run = p.internFunction("run(int)", "_Z3runi", "/src/app.cpp", 20);
  c.part = p.internFunction("run(int)", "_Z3runi.part.0", "/src/app.cpp", 20);
  c.isra = p.internFunction("run(int)", "_Z3runi.isra.0", "/src/app.cpp", 20);
  c.leaf = p.internFunction("leaf()", "_Z4leafv", "/src/app.cpp", 30);
  c.rec = p.internFunction("rec()", "_Z3recv", "/src/app.cpp", 40);
  auto loc = [&](uint64_t off, FunctionId f, uint32_t line) {
    LocationId l = p.internLocation(m, off, off);
    p.mutableLocations()[l].lines = {{f, line}};
    return l;
  };
  LocationId l_main = loc(0x10, c.main, 11);
  LocationId l_run = loc(0x20, c.run, 21);
  LocationId l_part = loc(0x30, c.part, 22);
  LocationId l_isra = loc(0x40, c.isra, 23);
  LocationId l_leaf = loc(0x50, c.leaf, 31);
  LocationId l_rec = loc(0x60, c.rec, 41);
  StackId s_main = p.internStack(kNone, l_main);
  StackId s_run = p.internStack(s_main, l_run);
  StackId s_part = p.internStack(s_run, l_part);
  StackId s_leaf = p.internStack(s_part, l_leaf);
  StackId s_isra = p.internStack(s_main, l_isra);
  StackId s_rec = p.internStack(p.internStack(s_main, l_rec), l_rec);
  for (int i = 0; i < 60; ++i) p.addSample({uint64_t(i), 1, 0, s_leaf, 10});
  for (int i = 0; i < 30; ++i) p.addSample({uint64_t(100 + i), 1, 0, s_part, 10});
  for (int i = 0; i < 10; ++i) p.addSample({uint64_t(200 + i), 1, 0, s_isra, 10});
  for (int i = 0; i < 5; ++i) p.addSample({uint64_t(300 + i), 1, 0, s_rec, 10});
  return c;
}

TEST(Identity, ClonesShareTheIdentityOfTheirFunction) {
  Clones c = clones();
  EXPECT_EQ(c.p.identity(c.part), c.run);
  EXPECT_EQ(c.p.identity(c.isra), c.run);
  EXPECT_EQ(c.p.identity(c.run), c.run);
  EXPECT_NE(c.p.identity(c.leaf), c.run);
  // Same display name, other file: another function.
  FunctionId other = c.p.internFunction("run(int)", "_Z3runi", "/src/other.cpp", 20);
  EXPECT_NE(c.p.identity(other), c.run);
}

TEST(Identity, TheTableHasOneRowPerFunction) {
  Clones c = clones();
  auto rows = topTable(c.p, GroupBy::kFunction);
  int run_rows = 0;
  for (const TopRow& r : rows) {
    if (r.function != "run(int)") continue;
    ++run_rows;
    EXPECT_EQ(r.self, 400u) << "the clones' self time (part 30 + isra 10 samples)";
    EXPECT_EQ(r.total, 1000u) << "every sample but rec's, once each";
    EXPECT_EQ(r.system_name, "_Z3runi") << "rows name the function, not one of its clones";
  }
  EXPECT_EQ(run_rows, 1);
}

TEST(Identity, AFunctionIsNotItsOwnCallerThroughAClone) {
  Clones c = clones();
  NeighborTables callers = neighbors(c.p, "run(int)", false, false);
  ASSERT_EQ(callers.tables.size(), 1u);
  EXPECT_TRUE(callers.exact);
  ASSERT_EQ(callers.tables[0].rows.size(), 1u);
  EXPECT_EQ(callers.tables[0].rows[0].who.name, "main");
  EXPECT_EQ(callers.tables[0].weight, 1000u);
  // Recursion is still recursion.
  NeighborTables rec = neighbors(c.p, "rec()", false, false);
  ASSERT_EQ(rec.tables.size(), 1u);
  bool self_caller = false;
  for (const Neighbor& n : rec.tables[0].rows) self_caller |= n.who.name == "rec()";
  EXPECT_TRUE(self_caller);
}

TEST(Identity, TheCallTreeHasNoCloneLevel) {
  Clones c = clones();
  CallTree t = CallTree::build(c.p, {});
  // main -> run(int) -> leaf(): run appears once on the path.
  walkDepthFirst(t, [&](uint32_t id, const CallNode& n) {
    if (id != 0 && n.parent != 0) {
      EXPECT_FALSE(t.name(c.p, id) == "run(int)" && t.name(c.p, n.parent) == "run(int)")
          << "run(int) under run(int)";
    }
    return true;
  });
  std::vector<Frame> frames;
  forEachDisplayFrame(c.p, c.p.samples()[0].stack, false,
                      [&](const Frame& f) { frames.push_back(f); });
  ASSERT_EQ(frames.size(), 3u) << "leaf, run (the clone), main";
  EXPECT_EQ(frames[1].line->function, c.part) << "the clone's own line is kept";
}

TEST(Identity, FunctionsThatShareANameAreTwoTablesOfCallers) {
  Profile p;
  ModuleId m = p.internModule("/bin/app", "");
  FunctionId a = p.internFunction("helper", "helper", "/src/a.cpp", 5);
  FunctionId b = p.internFunction("helper", "helper", "/src/b.cpp", 9);
  FunctionId top = p.internFunction("main", "main", "/src/main.cpp", 1);
  LocationId la = p.internLocation(m, 1, 1), lb = p.internLocation(m, 2, 2),
             lt = p.internLocation(m, 3, 3);
  p.mutableLocations()[la].lines = {{a, 6}};
  p.mutableLocations()[lb].lines = {{b, 10}};
  p.mutableLocations()[lt].lines = {{top, 2}};
  StackId st = p.internStack(kNone, lt);
  p.addSample({0, 1, 0, p.internStack(st, la), 1});
  p.addSample({1, 1, 0, p.internStack(st, lb), 1});
  auto rows = topTable(p, GroupBy::kFunction);
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                          [](const TopRow& r) { return r.function == "helper"; }),
            2);
  NeighborTables t = neighbors(p, "helper", false, false);
  ASSERT_EQ(t.tables.size(), 2u);
  EXPECT_NE(t.tables[0].function.file, t.tables[1].function.file);
}

TEST(Lines, ALineInAnotherFileKeepsItsFile) {
  Profile p;
  ModuleId m = p.internModule("/bin/app", "");
  FunctionId f = p.internFunction("work()", "_Z4workv", "/src/work.cpp", 10);
  LocationId in_header = p.internLocation(m, 1, 1);
  LocationId in_body = p.internLocation(m, 2, 2);
  // An inlined header's line, with no inline entry for its function.
  p.mutableLocations()[in_header].lines = {{f, 77, p.internString("/src/vec.hpp")}};
  p.mutableLocations()[in_body].lines = {{f, 12}};
  p.addSample({0, 1, 0, p.internStack(kNone, in_header), 3});
  p.addSample({1, 1, 0, p.internStack(kNone, in_body), 1});
  auto rows = topTable(p, GroupBy::kLine);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 77u);
  EXPECT_EQ(rows[0].file, "/src/vec.hpp");
  EXPECT_EQ(rows[1].line, 12u);
  EXPECT_EQ(rows[1].file, "/src/work.cpp");
  auto files = topTable(p, GroupBy::kFile);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].function, "/src/vec.hpp");
}

TEST(Modules, NamesThatCollideShowTheirPaths) {
  Profile p;
  ModuleId a = p.internModule("/usr/bin/strobe", "");
  ModuleId c = p.internModule("/usr/lib/libc.so.6", "");
  EXPECT_EQ(p.moduleName(a), "strobe");
  ModuleId b = p.internModule("/home/me/build/strobe", "");
  EXPECT_EQ(p.moduleName(a), "/usr/bin/strobe");
  EXPECT_EQ(p.moduleName(b), "/home/me/build/strobe");
  EXPECT_EQ(p.moduleName(c), "libc.so.6");
  // Another build of the same path is not a collision of names.
  ModuleId c2 = p.internModule("/usr/lib/libc.so.6", "beef");
  EXPECT_EQ(p.moduleName(c2), "libc.so.6");
  LocationId l = p.internLocation(b, 0x10, 0x10);
  p.addSample({0, 1, 0, p.internStack(kNone, l), 1});
  auto rows = topTable(p, GroupBy::kModule);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].function, "/home/me/build/strobe");
  EXPECT_EQ(rows[0].module_path, "/home/me/build/strobe");
}

TEST(SymbolNames, PathsAreNormalizedLexically) {
  EXPECT_EQ(normalizePath("./elf/./elf/dl-reloc.c"), "elf/elf/dl-reloc.c");
  EXPECT_EQ(normalizePath("./csu/../csu/libc-start.c"), "csu/libc-start.c");
  EXPECT_EQ(normalizePath("/usr//include/c++/12/../12/bits/x.h"), "/usr/include/c++/12/bits/x.h");
  EXPECT_EQ(normalizePath("../a/./b"), "../a/b");
  EXPECT_EQ(normalizePath("/../a"), "/a");
  EXPECT_EQ(normalizePath("a/.."), ".");
  EXPECT_EQ(normalizePath(""), "");
}

TEST(SymbolNames, CloneSuffixes) {
  EXPECT_EQ(cloneBase("_Z3fooi.part.0"), "_Z3fooi");
  EXPECT_EQ(cloneBase("foo.cold"), "foo");
  EXPECT_EQ(cloneBase("foo.isra.0"), "foo");
  EXPECT_EQ(cloneBase("foo.constprop.0.isra.0"), "foo");
  EXPECT_EQ(cloneBase("foo@@GLIBC_2.34"), "foo@@GLIBC_2.34");
  EXPECT_EQ(cloneSuffix("foo.part.1"), ".part.1");
}

TEST(FewSamples, StandardErrorOfAShare) {
  // 1 of 6 samples (16.7%): Agresti-Coull's p = 3/10 of n = 10.
  EXPECT_NEAR(shareStdErrorPct(1, 6), 100 * std::sqrt(0.3 * 0.7 / 10), 1e-9);
  EXPECT_NEAR(shareStdErrorPct(1, 6), 14.5, 0.05);
  // All of 12 samples is not a certain 100%.
  EXPECT_GT(shareStdErrorPct(12, 12), 8);
  // Many samples: the plain binomial error.
  EXPECT_NEAR(shareStdErrorPct(50'000, 100'000), 100 * std::sqrt(0.25 / 100'000), 1e-3);
}

}  // namespace
}  // namespace strobe::model
