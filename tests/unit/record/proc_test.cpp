// What strobe reads from /proc for attaching: command lines (a rewritten
// title's NUL padding) and a process's CPU time.
#include "record/proc.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace strobe::record {
namespace {

using namespace std::string_literals;

TEST(ProcCmdline, ArgumentsSplitAtNuls) {
  EXPECT_EQ(parseCmdline("./app\0--port\0\0x\0"s),
            (std::vector<std::string>{"./app", "--port", "", "x"}));
  EXPECT_TRUE(parseCmdline("").empty());
}

// redis-server rewrites its title over the argument area and pads it with
// NULs: ps shows "redis-server *:6399", not 44 empty arguments.
TEST(ProcCmdline, ARewrittenTitlesPaddingIsNoArgument) {
  std::string text = "/usr/bin/redis-server *:6399"s + std::string(44, '\0');
  EXPECT_EQ(parseCmdline(text), std::vector<std::string>{"/usr/bin/redis-server *:6399"});
}

TEST(ProcCpu, UserAndSystemTimeWithTheWaitedForChildren) {
  // utime 250, stime 30, cutime 5, cstime 1 (fields 14 to 17), 10 ms ticks.
  const std::string stat =
      "1234 (a (weird) name) S 1 1234 1234 0 -1 4194304 100 0 0 0 250 30 5 1 20 0 1 0 1 2 3";
  auto cpu = parseProcessCpu(stat, 10'000'000);
  ASSERT_TRUE(cpu.has_value());
  EXPECT_EQ(cpu->user_ns, 2'550'000'000u);
  EXPECT_EQ(cpu->system_ns, 310'000'000u);
  EXPECT_FALSE(parseProcessCpu("1234 (x) S 1 2 3", 10'000'000).has_value());
  EXPECT_FALSE(parseProcessCpu("garbage", 10'000'000).has_value());
}

TEST(ProcCpu, ThisProcess) {
  auto cpu = readProcessCpu(::getpid());
  ASSERT_TRUE(cpu.has_value());
}

}  // namespace
}  // namespace strobe::record
