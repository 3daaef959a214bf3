// Durations, pid lists and /proc parsing for attaching.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "record/options.hpp"
#include "record/proc.hpp"

namespace strobe::record {
namespace {

TEST(ParseSessionDuration, BaseFormsFromOneMillisecond) {
  EXPECT_EQ(*parseSessionDuration("1h30m"), 5'400'000'000'000u);
  EXPECT_EQ(*parseSessionDuration("2.5"), 2'500'000'000u);
  EXPECT_EQ(*parseSessionDuration("1ms"), 1'000'000u);
  EXPECT_EQ(*parseSessionDuration("1000us"), 1'000'000u);
  EXPECT_EQ(*parseSessionDuration("1000000000000000000ns"), 1'000'000'000'000'000'000u);
}

TEST(ParseSessionDuration, BelowOneMillisecondOrYearsIsOutOfRange) {
  for (const char* bad : {"0", "0s", "999us", "0.5ms", "1000000000000000001ns", "300000h"}) {
    auto d = parseSessionDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.error().message, "duration '" + std::string(bad) + "' is out of range");
    EXPECT_EQ(d.error().hint, "give at least 1ms and at most a few years");
    EXPECT_EQ(d.error().kind, ErrorKind::kUsage) << bad;
  }
}

TEST(ParseSessionDuration, MalformedTextIsBaseError) {
  auto d = parseSessionDuration("5x");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "malformed duration '5x'");
  EXPECT_EQ(d.error().hint, "use e.g. 30s, 1h30m, 250ms, 100us or plain seconds (2.5)");
}

TEST(ParsePidList, ListsAndErrors) {
  EXPECT_EQ(*parsePidList("123"), (std::vector<pid_t>{123}));
  EXPECT_EQ(*parsePidList("3,1,3"), (std::vector<pid_t>{3, 1}));
  for (const char* bad : {"", ",", "1,", "x", "0", "-1", "1;2", "99999999999"}) {
    EXPECT_FALSE(parsePidList(bad).ok()) << bad;
  }
}

TEST(ParseMaps, FileAnonAndSpecialMappings) {
  const char* text =
      "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234 /usr/bin/app\n"
      "55d0c0a02000-55d0c0a08000 r-xp 00002000 08:01 1234 /usr/bin/app\n"
      "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
      "7ffd1e5f0000-7ffd1e5f2000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7f1000000000-7f1000001000 r-xp 00000000 08:01 99 /tmp/a file (deleted)\n"
      "garbage\n"
      "zz-10 r-xp 0 0 0 /x\n";
  auto maps = parseMaps(text);
  ASSERT_EQ(maps.size(), 5u);
  EXPECT_EQ(maps[1].start, 0x55d0c0a02000u);
  EXPECT_EQ(maps[1].end, 0x55d0c0a08000u);
  EXPECT_EQ(maps[1].pgoff, 0x2000u);
  EXPECT_TRUE(maps[1].exec);
  EXPECT_FALSE(maps[0].exec);
  EXPECT_EQ(maps[1].path, "/usr/bin/app");
  EXPECT_EQ(maps[2].path, "");
  EXPECT_EQ(maps[3].path, "[vdso]");
  EXPECT_EQ(maps[4].path, "/tmp/a file (deleted)");
}

TEST(Proc, OwnProcess) {
  const pid_t self = ::getpid();
  EXPECT_TRUE(processAlive(self));
  EXPECT_FALSE(processAlive(2147483647));
  EXPECT_FALSE(processExists(2147483647));
  auto threads = listThreads(self);
  ASSERT_FALSE(threads.empty());
  EXPECT_EQ(threads.front(), self);
  EXPECT_EQ(readComm(self, self), "record_test");
  auto cmd = readCmdline(self);
  ASSERT_FALSE(cmd.empty());
  auto maps = readMaps(self);
  ASSERT_TRUE(maps.ok());
  bool exec_self = false;
  for (const auto& m : *maps)
    exec_self |= m.exec && m.path.find("record_test") != std::string::npos;
  EXPECT_TRUE(exec_self);
}

TEST(Proc, BuildIdOfOwnExecutable) {
  std::string id = readBuildId("/proc/self/exe");
  // Debian's gcc links with --build-id (sha1: 20 bytes).
  EXPECT_EQ(id.size(), 40u) << id;
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_EQ(readBuildId("/nonexistent"), "");
  EXPECT_EQ(readBuildId("/proc/self/status"), "");  // not ELF
}

TEST(Proc, FindByNameExcludesSelfAndCountsFds) {
  // Another record_test may come and go meanwhile (ctest runs them side by
  // side): one call, then every match is checked.
  for (const auto& m : findProcessesByName("record_test", ::getpid())) EXPECT_NE(m.pid, ::getpid());
  auto matches = findProcessesByName("record_test", 0);
  bool self = false;
  for (const auto& m : matches) self |= m.pid == ::getpid();
  EXPECT_TRUE(self);
  int before = countOpenFds();
  EXPECT_GT(before, 0);
  int fd = ::dup(0);
  EXPECT_EQ(countOpenFds(), before + 1);
  ::close(fd);
  EXPECT_EQ(countOpenFds(), before);
}

}  // namespace
}  // namespace strobe::record
