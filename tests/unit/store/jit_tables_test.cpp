// The JIT tables of a recording: JIT code, its lines, the bytes of the
// sampled functions and the anonymous regions come back as written; older
// recordings without the tables read as having no JIT code; damaged rows
// are refused with the row named.
#include <gtest/gtest.h>

#include "model/profile.hpp"
#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

// Two functions at one address (the second loaded later, with lines), a
// third never sampled, one sample in each of the first two.
model::Profile jitProfile() {
  model::Profile p;
  p.meta().pid = 10;
  p.meta().start_monotonic_ns = 5'000'000'000;
  p.setThread(model::Thread{10, 10, "main"});
  model::ModuleId jit = p.internModule(model::kJitModule, "");
  auto code = [&](uint64_t start, uint64_t size, int64_t load, int64_t unload, const char* name,
                  model::JitSource source, std::string bytes) {
    model::JitCode c;
    c.pid = 10;
    c.start = start;
    c.size = size;
    c.load_ns = load;
    c.unload_ns = unload;
    c.name = p.internString(name);
    c.source = source;
    c.bytes = std::move(bytes);
    return p.addJitCode(std::move(c));
  };
  auto a = code(0x7000, 5, -20, 1000, "first", model::JitSource::kApi, "\x55\x48\x89\xe5\xc3");
  auto b = code(0x7000, 3, 1000, model::kNeverUnloaded, "second", model::JitSource::kJitdump,
                std::string("\x90\x00\xc3", 3));
  code(0x9000, 40, 0, model::kNeverUnloaded, "never sampled", model::JitSource::kPerfMap, "xyz");
  p.mutableJitCode()[b].lines = {{0, p.internString("s.js"), 7}, {2, p.internString("s.js"), 8}};
  p.addAnonRegion(10, 0x7000, 0x8000);
  p.addAnonRegion(10, 0x20000, 0x21000);
  for (auto [id, t] : {std::pair{a, uint64_t{10}}, std::pair{b, uint64_t{2000}}}) {
    const model::JitCode& c = p.jitCode()[id];
    model::LocationId l = p.internLocation(jit, c.module_offset + 1, c.start + 1);
    model::FunctionId f = p.internFunction(p.str(c.name), p.str(c.name), "", 0);
    p.mutableLocations()[l].lines.push_back(model::Line{f, 0});
    p.addSample(model::Sample{t, 10, 0, p.internStack(model::kNone, l), 1});
  }
  return p;
}

TEST_F(StoreTest, JitTablesRoundTrip) {
  model::Profile original = jitProfile();
  ASSERT_TRUE(store::writeProfile(original, file("jit.db")));
  auto back = store::readProfile(file("jit.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  expectSameProfile(original, *back);
  const auto& code = back->jitCode();
  ASSERT_EQ(code.size(), 3U);
  EXPECT_EQ(back->str(code[0].name), "first");
  EXPECT_EQ(code[0].load_ns, -20);
  EXPECT_EQ(code[0].unload_ns, 1000);
  EXPECT_EQ(code[0].source, model::JitSource::kApi);
  EXPECT_EQ(code[0].bytes, "\x55\x48\x89\xe5\xc3");
  EXPECT_EQ(code[1].unload_ns, model::kNeverUnloaded);
  EXPECT_EQ(code[1].bytes, std::string("\x90\x00\xc3", 3)) << "a NUL inside the code";
  EXPECT_EQ(code[1].module_offset, 16U);
  ASSERT_EQ(code[1].lines.size(), 2U);
  EXPECT_EQ(code[1].lines[1].offset, 2U);
  EXPECT_EQ(back->str(code[1].lines[1].file), "s.js");
  EXPECT_EQ(code[1].lines[1].line, 8U);
  EXPECT_EQ(code[2].source, model::JitSource::kPerfMap);
  EXPECT_EQ(code[2].bytes, "") << "bytes are kept for sampled functions only";
  ASSERT_EQ(back->anonRegions().size(), 2U);
  EXPECT_EQ(back->anonRegions()[1].start, 0x20000U);
  EXPECT_EQ(back->moduleName(back->locations()[0].module), "[JIT]");
}

TEST_F(StoreTest, RecordingWithoutJitTablesHasNoJitCode) {
  ASSERT_TRUE(store::writeProfile(jitProfile(), file("old.db")));
  execSql(file("old.db"),
          "DROP TABLE jit_lines; DROP TABLE jit_code_bytes; DROP TABLE jit_code; "
          "DROP TABLE anon_regions;");
  auto back = store::readProfile(file("old.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(back->jitCode().empty());
  EXPECT_EQ(back->samples().size(), 2U);
}

TEST_F(StoreTest, DamagedJitRowsAreRefused) {
  struct Case {
    const char* sql;
    const char* problem;
  };
  const Case cases[] = {
      {"UPDATE jit_code SET source='gdb' WHERE id=1",
       "jit_code row 1: source 'gdb' is not jitdump, perf-map or api"},
      {"UPDATE jit_code SET module_offset=0 WHERE id=2",
       "jit_code row 2: module_offset 0 where 32 follows from the sizes before it"},
      {"UPDATE jit_code SET start=-16, size=100 WHERE id=0",
       "jit_code row 0: start + size is past the address space"},
      {"UPDATE jit_lines SET code_id=9",
       "jit_lines row (code_id 9): code_id 9 is out of range "
       "(3 jit_code)"},
      {"UPDATE jit_code_bytes SET code_id=7 WHERE code_id=0",
       "jit_code_bytes row: code_id 7 is out of range (3 jit_code)"},
      {"UPDATE anon_regions SET end=start", "anon_regions row: end is not after start"},
      {"DROP TABLE jit_lines",
       "some of the tables jit_code, jit_lines, jit_code_bytes and anon_regions are missing"},
  };
  for (const Case& c : cases) {
    const std::string path = file("bad.db");
    std::filesystem::remove(path);
    ASSERT_TRUE(store::writeProfile(jitProfile(), path));
    execSql(path, c.sql);
    auto back = store::readProfile(path);
    ASSERT_FALSE(back.ok()) << c.sql;
    EXPECT_EQ(back.error().kind, ErrorKind::kCorrupt) << c.sql;
    EXPECT_EQ(back.error().message, path + " is corrupt: " + c.problem) << c.sql;
  }
}

}  // namespace
}  // namespace strobe::test
