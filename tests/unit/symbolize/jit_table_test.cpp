// JIT code named by (pid, address, time): which entry holds when (JitTable),
// and how the Symbolizer turns frames in anonymous memory into "[JIT]"
// frames of the function that was there at each sample's time, or into one
// "[anon]+0xSTART" row per region (JitFrames).
#include "symbolize/jit_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/aggregate.hpp"
#include "model/profile.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

using model::JitCode;
using model::kNone;
using model::Profile;

model::JitCodeId add(Profile& p, int32_t pid, uint64_t start, uint64_t size, int64_t load,
                     const std::string& name, int64_t unload = model::kNeverUnloaded) {
  JitCode c;
  c.pid = pid;
  c.start = start;
  c.size = size;
  c.load_ns = load;
  c.unload_ns = unload;
  c.name = p.internString(name);
  return p.addJitCode(std::move(c));
}

TEST(JitTableTest, TheEntryLoadedLastBeforeTheTimeHolds) {
  Profile p;
  auto a = add(p, 7, 0x1000, 0x100, 100, "a");
  auto b = add(p, 7, 0x1000, 0x100, 500, "b");      // the same memory, reused
  auto c = add(p, 7, 0x1080, 0x100, 800, "c");      // over b's second half only
  auto d = add(p, 7, 0x4000, 0x10, 100, "d", 300);  // unloaded at 300
  auto other = add(p, 8, 0x1000, 0x100, 0, "other process");
  JitTable t;
  ASSERT_TRUE(t.update(p));
  EXPECT_FALSE(t.update(p)) << "nothing new";
  EXPECT_EQ(t.lookup(7, 0x1010, 100), a);
  EXPECT_EQ(t.lookup(7, 0x1010, 499), a);
  EXPECT_EQ(t.lookup(7, 0x1010, 500), b);
  EXPECT_EQ(t.lookup(7, 0x1010, 10'000), b) << "c does not cover 0x1010";
  EXPECT_EQ(t.lookup(7, 0x1090, 700), b);
  EXPECT_EQ(t.lookup(7, 0x1090, 800), c);
  EXPECT_EQ(t.lookup(7, 0x1170, 900), c);
  EXPECT_EQ(t.lookup(7, 0x1010, 50), a) << "before every load: the oldest (read late)";
  EXPECT_EQ(t.lookup(7, 0x4008, 200), d);
  EXPECT_EQ(t.lookup(7, 0x4008, 300), kNone) << "unloaded";
  EXPECT_EQ(t.lookup(7, 0x4010, 200), kNone) << "past the end";
  EXPECT_EQ(t.lookup(8, 0x1010, 600), other);
  EXPECT_EQ(t.lookup(9, 0x1010, 600), kNone);
}

TEST(JitTableTest, OfEntriesLoadedAtOneTimeTheOneLearntLastWins) {
  // Perf-map lines read in one poll share its time; the later line is newer code.
  Profile p;
  add(p, 1, 0x1000, 0x40, 1000, "old");
  auto newer = add(p, 1, 0x1000, 0x40, 1000, "new");
  JitTable t;
  t.update(p);
  EXPECT_EQ(t.lookup(1, 0x1004, 2000), newer);
  EXPECT_EQ(t.lookup(1, 0x1004, 10), newer);
}

// A sample of `tid` at `time` with the stack `frames` (leaf first).
void sample(Profile& p, int32_t tid, uint64_t time, std::vector<model::LocationId> frames) {
  model::StackId s = kNone;
  for (size_t i = frames.size(); i-- > 0;) s = p.internStack(s, frames[i]);
  p.addSample(model::Sample{time, tid, 0, s, 1000});
}

std::string leafName(const Profile& p, const model::Sample& s) {
  const model::Location& l = p.locations()[p.stacks()[s.stack].location];
  return l.lines.empty() ? "" : p.str(p.functions()[l.lines.front().function].name);
}

TEST(JitFramesTest, ReusedMemoryIsNamedByWhatHeldItAtEachSample) {
  Profile p;
  p.meta().pid = 50;
  p.setThread(model::Thread{51, 50, "worker"});
  model::ModuleId anon = p.internModule("//anon", "");
  model::ModuleId exe = p.internModule("/nonexistent/app", "");
  p.addAnonRegion(50, 0x7000, 0x9000);
  auto first = add(p, 50, 0x7000, 0x40, 0, "_ZN3jit5firstEv");
  auto second = add(p, 50, 0x7000, 0x40, 1'000'000, "second_function");
  p.mutableJitCode()[second].lines = {{0, p.internString("gen.src"), 10},
                                      {0x20, p.internString("gen.src"), 12}};
  model::LocationId jit_pc = p.internLocation(anon, 0x7024, 0x7024);
  model::LocationId caller = p.internLocation(exe, 0x1234, 0x401234);
  model::LocationId unnamed = p.internLocation(anon, 0x8800, 0x8800);
  model::LocationId unnamed2 = p.internLocation(anon, 0x8f00, 0x8f00);
  model::LocationId nowhere = p.internLocation(kNone, 0xdead0000, 0xdead0000);
  sample(p, 51, 10, {jit_pc, caller});         // first function
  sample(p, 51, 2'000'000, {jit_pc, caller});  // second function, same address
  sample(p, 51, 2'000'100, {unnamed, caller});
  sample(p, 51, 2'000'200, {nowhere, caller});
  sample(p, 51, 2'000'300, {unnamed2, caller});

  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  const auto& samples = p.samples();
  EXPECT_EQ(leafName(p, samples[0]), "jit::first()");
  EXPECT_EQ(leafName(p, samples[1]), "second_function");
  EXPECT_EQ(leafName(p, samples[2]), "[anon]+0x7000");
  EXPECT_EQ(leafName(p, samples[3]), "");
  // Two functions at one address: two locations of the [JIT] module.
  const model::Location& l0 = p.locations()[p.stacks()[samples[0].stack].location];
  const model::Location& l1 = p.locations()[p.stacks()[samples[1].stack].location];
  EXPECT_EQ(p.moduleName(l0.module), "[JIT]");
  EXPECT_EQ(l0.address, 0x7024U);
  EXPECT_EQ(l1.address, 0x7024U);
  EXPECT_EQ(p.jitCodeAt(l0.offset), first);
  EXPECT_EQ(p.jitCodeAt(l1.offset), second);
  EXPECT_EQ(l1.lines.front().line, 12U);
  const model::Function& fn = p.functions()[l1.lines.front().function];
  EXPECT_EQ(p.str(fn.file), "gen.src");
  EXPECT_EQ(fn.start_line, 10U);
  // The callers stay where they were.
  EXPECT_EQ(p.stacks()[p.stacks()[samples[1].stack].parent].location, caller);
  EXPECT_EQ(p.moduleName(p.locations()[unnamed].module), "[anon]");

  // One row per JIT function and per anonymous region, as the report shows.
  std::map<std::string, uint64_t> self;
  for (const auto& r : model::topTable(p, model::GroupBy::kFunction)) {
    self[r.function + " " + r.module] = r.self_samples;
  }
  EXPECT_EQ(self["jit::first() [JIT]"], 1U);
  EXPECT_EQ(self["second_function [JIT]"], 1U);
  EXPECT_EQ(self["[anon]+0x7000 [anon]"], 2U) << "two addresses, one region, one row";
  EXPECT_EQ(self["[unknown]+0xdead0000 [unknown]"], 1U);
}

TEST(JitFramesTest, LiveViewsMoveEachSampleOnce) {
  Profile p;
  p.meta().pid = 5;
  model::ModuleId anon = p.internModule("//anon", "");
  model::LocationId pc = p.internLocation(anon, 0x7004, 0x7004);
  Symbolizer s;
  sample(p, 5, 100, {pc});
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_EQ(leafName(p, p.samples()[0]), "") << "nothing named it yet";
  add(p, 5, 0x7000, 0x10, 50, "late");
  sample(p, 5, 200, {pc});
  ASSERT_TRUE(s.symbolize(p).ok());
  EXPECT_EQ(leafName(p, p.samples()[1]), "late");
  EXPECT_EQ(p.stacks()[p.samples()[0].stack].location, pc) << "earlier samples stay";
}

}  // namespace
}  // namespace strobe::symbolize
