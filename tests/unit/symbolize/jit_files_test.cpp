// Following JIT runtimes' files while they grow: jitdump records and
// perf-map lines reach the Profile's JIT table with their times; records and
// lines cut off at the end wait for the next poll; damaged files are left
// with one warning; and the perf-map line parser.
#include "symbolize/jit_files.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "symbolize/jitdump.hpp"
#include "symbolize/perf_map.hpp"

namespace strobe::symbolize {
namespace {

class JitFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/strobe-jitfiles-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    p_.meta().start_monotonic_ns = 1'000'000'000;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  void append(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
  }
  std::string name(model::JitCodeId id) const { return p_.str(p_.jitCode()[id].name); }

  std::string dir_;
  model::Profile p_;
};

TEST_F(JitFilesTest, FollowsAJitdumpAsItGrows) {
  const std::string path = dir_ + "/jit-77.dump";
  std::string head;
  appendJitdumpHeader(head, 77, 900'000'000);
  std::string one;
  std::vector<JitdumpLine> lines = {{0x5000, 3, 0, "x.js"}, {0x5002, 4, 0, "x.js"}};
  appendJitdumpDebugInfo(one, 1'100'000'000, 0x5000, lines);
  const uint8_t code[] = {0x90, 0x90, 0x90, 0xc3};
  appendJitdumpLoad(one, 1'100'000'000, 77, 77, 0x5000, code, 1, "JS:*f x.js:3");
  std::string two;
  appendJitdumpMove(two, 1'300'000'000, 77, 77, 0x5000, 0x6000, sizeof code, 1);
  appendJitdumpLoad(two, 1'400'000'000, 77, 77, 0x5000, code, 2, "JS:*g x.js:9");
  appendJitdumpClose(two, 1'500'000'000);

  JitFiles files(dir_);
  files.followJitdump(77, path);
  files.followJitdump(77, path);  // the same marker twice: followed once
  append(path, head.substr(0, 30));
  files.poll(p_, 1'050'000'000);
  EXPECT_TRUE(p_.jitCode().empty());
  append(path, head.substr(30) + one + two.substr(0, 10));
  files.poll(p_, 1'200'000'000);
  ASSERT_EQ(p_.jitCode().size(), 1U);
  const model::JitCode& f = p_.jitCode()[0];
  EXPECT_EQ(name(0), "JS:*f x.js:3");
  EXPECT_EQ(f.pid, 77);
  EXPECT_EQ(f.start, 0x5000U);
  EXPECT_EQ(f.size, 4U);
  EXPECT_EQ(f.load_ns, 100'000'000) << "the record's time, relative to the recording";
  EXPECT_EQ(f.source, model::JitSource::kJitdump);
  EXPECT_EQ(f.bytes, std::string("\x90\x90\x90\xc3", 4));
  ASSERT_EQ(f.lines.size(), 2U);
  EXPECT_EQ(f.lines[1].offset, 2U);
  EXPECT_EQ(f.lines[1].line, 4U);
  EXPECT_EQ(p_.str(f.lines[1].file), "x.js");

  append(path, two.substr(10));
  files.finish(p_, 1'600'000'000);
  EXPECT_TRUE(files.takeWarnings().empty());
  ASSERT_EQ(p_.jitCode().size(), 3U);
  EXPECT_EQ(p_.jitCode()[0].unload_ns, 300'000'000) << "moved away";
  EXPECT_EQ(name(1), "JS:*f x.js:3");
  EXPECT_EQ(p_.jitCode()[1].start, 0x6000U);
  EXPECT_EQ(p_.jitCode()[1].load_ns, 300'000'000);
  EXPECT_EQ(p_.jitCode()[1].lines.size(), 2U);
  EXPECT_EQ(name(2), "JS:*g x.js:9");
  EXPECT_EQ(p_.jitCode()[2].start, 0x5000U) << "the old address reused";
  EXPECT_TRUE(p_.jitCode()[2].lines.empty());
  // After CODE_CLOSE the file is not read again.
  append(path, one);
  files.poll(p_, 1'700'000'000);
  EXPECT_EQ(p_.jitCode().size(), 3U);
}

TEST_F(JitFilesTest, ADamagedJitdumpKeepsWhatCameBeforeAndWarnsOnce) {
  const std::string path = dir_ + "/jit-5.dump";
  std::string bytes;
  appendJitdumpHeader(bytes, 5, 0);
  appendJitdumpLoad(bytes, 1'000'000'001, 5, 5, 0x9000, {}, 0, "good");
  bytes += std::string("\x00\x00\x00\x00\x04\x00\x00\x00", 8) + std::string(8, '\0');
  append(path, bytes);
  JitFiles files(dir_);
  files.followJitdump(5, path);
  files.poll(p_, 1'000'000'002);
  files.poll(p_, 1'000'000'003);
  ASSERT_EQ(p_.jitCode().size(), 1U);
  EXPECT_EQ(name(0), "good");
  std::vector<std::string> w = files.takeWarnings();
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0], "stopped reading the jitdump " + path +
                      ": CODE_LOAD (id 0) claims 4 bytes at offset 101 (JIT code it names later "
                      "stays unnamed; the file is damaged or not a jitdump)");
}

TEST_F(JitFilesTest, DamagedRecordsAreSkippedWithOneWarning) {
  const std::string path = dir_ + "/jit-4.dump";
  std::string bytes;
  appendJitdumpHeader(bytes, 4, 0);
  // Two debug records whose single entries leave 16 bytes unused each.
  for (int i = 0; i < 2; ++i) {
    std::string debug;
    std::vector<JitdumpLine> lines = {{0x9000, 3, 0, "x.js"}};
    appendJitdumpDebugInfo(debug, 1'000'000'001, 0x9000, lines);
    uint32_t size = 0;
    std::memcpy(&size, debug.data() + 4, 4);
    size += 16;
    std::memcpy(debug.data() + 4, &size, 4);
    bytes += debug + std::string(16, 'g');
  }
  appendJitdumpLoad(bytes, 1'000'000'002, 4, 4, 0x9000, {}, 0, "kept");
  append(path, bytes);
  JitFiles files(dir_);
  files.followJitdump(4, path);
  files.finish(p_, 1'000'000'003);
  ASSERT_EQ(p_.jitCode().size(), 1U);
  EXPECT_EQ(name(0), "kept");
  EXPECT_TRUE(p_.jitCode()[0].lines.empty()) << "the damaged lines are not used";
  std::vector<std::string> w = files.takeWarnings();
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0], "skipped damaged records in the jitdump " + path +
                      " (the first, at offset 40: CODE_DEBUG_INFO (id 2): its 1 entries fill 21 "
                      "of its 37 bytes); the records around them are read");
}

TEST_F(JitFilesTest, TscTimestampsAreReplacedByTheTimeOfReading) {
  const std::string path = dir_ + "/jit-3.dump";
  std::string bytes;
  appendJitdumpHeader(bytes, 3, 0);
  bytes[32] = 1;  // flags: JITDUMP_FLAGS_ARCH_TIMESTAMP (little-endian host)
  appendJitdumpLoad(bytes, 987654321987, 3, 3, 0x9000, {}, 0, "tsc");
  append(path, bytes);
  JitFiles files(dir_);
  files.followJitdump(3, path);
  files.poll(p_, 1'700'000'000);
  ASSERT_EQ(p_.jitCode().size(), 1U);
  EXPECT_EQ(p_.jitCode()[0].load_ns, 700'000'000);
  std::vector<std::string> w = files.takeWarnings();
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0], path +
                      " has TSC timestamps, not CLOCK_MONOTONIC ones: its code is named as strobe "
                      "reads it, so reused addresses may be named after the wrong function (run "
                      "the JIT without its arch-timestamp option)");
}

TEST_F(JitFilesTest, ReportsAJitdumpCutOffAtTheEnd) {
  const std::string path = dir_ + "/jit-6.dump";
  std::string bytes;
  appendJitdumpHeader(bytes, 6, 0);
  appendJitdumpLoad(bytes, 1'000'000'001, 6, 6, 0x9000, {}, 0, "cut");
  append(path, bytes.substr(0, bytes.size() - 2));
  JitFiles files(dir_);
  files.followJitdump(6, path);
  files.finish(p_, 1'000'000'002);
  EXPECT_TRUE(p_.jitCode().empty());
  std::vector<std::string> w = files.takeWarnings();
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0], "the jitdump " + path +
                      " ends inside a record (58 bytes left over): the runtime was stopped "
                      "while writing it");
}

TEST_F(JitFilesTest, NotAJitdumpAndNoFileAreWarnings) {
  append(dir_ + "/jit-8.dump", "hello, this is not a jitdump file at all, no");
  JitFiles files(dir_);
  files.followJitdump(8, dir_ + "/jit-8.dump");
  files.followJitdump(9, dir_ + "/jit-9.dump");
  files.poll(p_, 1'000'000'000);
  std::vector<std::string> w = files.takeWarnings();
  ASSERT_EQ(w.size(), 2U);
  EXPECT_EQ(w[0], "stopped reading the jitdump " + dir_ +
                      "/jit-8.dump: not a jitdump file (magic 0x6c6c6568, expected 0x4a695444 "
                      "'JiTD') (JIT code it names later stays unnamed; the file is damaged or "
                      "not a jitdump)");
  EXPECT_EQ(w[1], "cannot read " + dir_ +
                      "/jit-9.dump: No such file or directory (it was deleted before strobe read "
                      "it: its JIT code stays unnamed)");
}

TEST_F(JitFilesTest, FollowsThePerfMapOfProcessesWithAnonymousCode) {
  // A living process (this one): its map is looked for until it appears.
  const int32_t pid = ::getpid();
  p_.addAnonRegion(pid, 0x7000, 0x8000);
  const std::string map = dir_ + "/perf-" + std::to_string(pid) + ".map";
  JitFiles files(dir_);
  files.poll(p_, 1'000'000'000);  // no map yet: not a problem
  append(map, "7000 40 first\n7040 10 half a li");
  files.poll(p_, 1'250'000'000);
  ASSERT_EQ(p_.jitCode().size(), 1U);
  EXPECT_EQ(name(0), "first");
  EXPECT_EQ(p_.jitCode()[0].load_ns, 250'000'000) << "loaded when read";
  EXPECT_EQ(p_.jitCode()[0].source, model::JitSource::kPerfMap);
  append(map, "ne\n7000 40 reused\n");
  files.finish(p_, 1'500'000'000);
  ASSERT_EQ(p_.jitCode().size(), 3U);
  EXPECT_EQ(name(1), "half a line");
  EXPECT_EQ(name(2), "reused");
  EXPECT_EQ(p_.jitCode()[2].load_ns, 500'000'000);
  EXPECT_TRUE(files.takeWarnings().empty());
}

// The map of a process that is gone is no longer looked for: a host-wide
// recording sees thousands of processes come and go.
TEST_F(JitFilesTest, StopsLookingForThePerfMapOfAProcessThatIsGone) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // reaped: the pid names no process
  p_.addAnonRegion(child, 0x7000, 0x8000);
  JitFiles files(dir_);
  files.poll(p_, 1'000'000'000);  // no map, no process
  append(dir_ + "/perf-" + std::to_string(child) + ".map", "7000 40 late\n");
  files.poll(p_, 1'250'000'000);
  EXPECT_TRUE(p_.jitCode().empty());
  EXPECT_TRUE(files.takeWarnings().empty());
}

TEST(PerfMapLineTest, ParsesOneLine) {
  auto l = parsePerfMapLine("7f0000001000 40 LazyCompile:*add /app/x.js:3");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->start, 0x7f0000001000U);
  EXPECT_EQ(l->size, 0x40U);
  EXPECT_EQ(l->name, "LazyCompile:*add /app/x.js:3");
  l = parsePerfMapLine("0x7f0000002000 0x10 _ZN3jit4stubEv\r");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->size, 0x10U);
  EXPECT_EQ(l->name, "_ZN3jit4stubEv");
  EXPECT_FALSE(parsePerfMapLine("nonsense").has_value());
  EXPECT_FALSE(parsePerfMapLine("7f0000003000 zz bad size").has_value());
  EXPECT_FALSE(parsePerfMapLine("7f0000004000 0 empty").has_value());
  EXPECT_FALSE(parsePerfMapLine("7f0000005000 10").has_value());
  EXPECT_FALSE(parsePerfMapLine("ffffffffffffffff 10 wraps").has_value());
}

}  // namespace
}  // namespace strobe::symbolize
