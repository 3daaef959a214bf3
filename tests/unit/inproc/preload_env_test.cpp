#include "inproc/preload_env.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>

namespace strobe::inproc {
namespace {

TEST(PreloadEnvTest, ParsesSignalNames) {
  EXPECT_EQ(*parseSignal("SIGUSR2"), SIGUSR2);
  EXPECT_EQ(*parseSignal("USR1"), SIGUSR1);
  EXPECT_EQ(*parseSignal("12"), 12);
  auto bad = parseSignal("SIGNOPE");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "STROBE_SIGNAL='SIGNOPE' is not a signal");
}

TEST(PreloadEnvTest, ParsesRealTimeSignals) {
  EXPECT_EQ(*parseSignal("SIGRTMIN"), SIGRTMIN);
  EXPECT_EQ(*parseSignal("SIGRTMIN+3"), SIGRTMIN + 3);
  EXPECT_EQ(*parseSignal("RTMAX-1"), SIGRTMAX - 1);
  EXPECT_FALSE(parseSignal("SIGRTMIN+999").ok());
  EXPECT_FALSE(parseSignal("SIGRTMIN-1").ok());
}

// Only signals meant for programs may toggle profiling: a fault signal taken
// over makes a crashing program loop, a termination signal makes `kill` fail.
TEST(PreloadEnvTest, ToggleSignalIsOnlyOneMeantForPrograms) {
  for (const char* name : {"SIGUSR1", "SIGUSR2", "SIGRTMIN", "SIGRTMIN+5", "SIGRTMAX"}) {
    EXPECT_TRUE(checkToggleSignal(name, *parseSignal(name)).ok()) << name;
  }
  for (const char* name :
       {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGTERM", "SIGINT", "SIGHUP",
        "SIGQUIT", "SIGPROF", "SIGCHLD", "SIGPIPE", "SIGALRM", "SIGKILL", "SIGSTOP", "11"}) {
    Status st = checkToggleSignal(name, *parseSignal(name));
    ASSERT_FALSE(st.ok()) << name;
    EXPECT_EQ(st.error().message,
              std::string("STROBE_SIGNAL=") + name + " is not a signal profiling may take over");
    EXPECT_EQ(st.error().hint, "use SIGUSR1, SIGUSR2 or SIGRTMIN+N (one the program does not use)");
    EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
  }
  ::setenv("STROBE_SIGNAL", "SIGSEGV", 1);
  auto cfg = readPreloadConfig();
  ::unsetenv("STROBE_SIGNAL");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, "STROBE_SIGNAL=SIGSEGV is not a signal profiling may take over");
}

TEST(PreloadEnvTest, NumbersPathsBeforeTheirExtension) {
  EXPECT_EQ(numberedPath("app.pb.gz", 2), "app.2.pb.gz");
  EXPECT_EQ(numberedPath("/tmp/x.d/app.txt", 1), "/tmp/x.d/app.1.txt");
  EXPECT_EQ(numberedPath("/tmp/x.d/app", 3), "/tmp/x.d/app.3");
  EXPECT_EQ(numberedPath(".hidden", 1), ".hidden.1");
  EXPECT_EQ(expandPid("out-%p.txt", 42), "out-42.txt");
}

TEST(PreloadEnvTest, ReadsTheEnvironment) {
  setenv("STROBE_OUTPUT", "a.txt", 1);
  setenv("STROBE_FREQ", "999", 1);
  setenv("STROBE_MODE", "wall", 1);
  setenv("STROBE_ENGINE", "timer", 1);
  auto c = readPreloadConfig();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->active());
  EXPECT_EQ(c->output, "a.txt");
  EXPECT_EQ(c->options.frequency, 999u);
  EXPECT_EQ(c->options.mode, Mode::kWall);
  EXPECT_EQ(c->options.engine, EngineKind::kTimer);

  setenv("STROBE_FREQ", "fast", 1);
  auto bad = readPreloadConfig();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "STROBE_FREQ='fast' is not a number from 1 to 100000");
  setenv("STROBE_FREQ", "99", 1);
  setenv("STROBE_MODE", "gpu", 1);
  bad = readPreloadConfig();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "STROBE_MODE='gpu' is not a mode");
  for (const char* v : {"STROBE_OUTPUT", "STROBE_FREQ", "STROBE_MODE", "STROBE_ENGINE"})
    unsetenv(v);
  EXPECT_FALSE(readPreloadConfig()->active());
}

}  // namespace
}  // namespace strobe::inproc
