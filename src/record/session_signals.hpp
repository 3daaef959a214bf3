// What a recording session changes in strobe's own process while it runs,
// and puts back: the handlers of the stop signals (SIGINT, SIGTERM, SIGHUP,
// SIGQUIT: forwarded to a launched command while it runs, otherwise they
// stop the recording) and of SIGCHLD (wakes the drain loop), and the
// child-subreaper flag (a launched command's orphans are strobe's to wait
// for).
// Owns: process-wide signal dispositions while a SignalScope lives; one at a
// time per process. The handlers are async-signal-safe (an atomic, a write
// to the wake pipe, kill()).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <array>

namespace strobe::record {

class SignalScope {
 public:
  // child: where stop signals go while it runs (-1: none); wake_fd: the
  // write end of a pipe the drain loop polls.
  SignalScope(pid_t child, int wake_fd);
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  // A stop signal arrived (while nothing was forwarded).
  [[nodiscard]] static bool stopRequested();
  // From now on stop signals stop the recording (the command exited).
  static void stopForwarding();

 private:
  static constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  std::array<struct sigaction, 4> old_{};
  struct sigaction old_chld_ = {};
};

// Makes strobe the reaper of the command's orphans (their parent exited
// first), so that it can wait for them and count their CPU; restores the
// previous setting on destruction.
class SubreaperScope {
 public:
  explicit SubreaperScope(bool on);
  ~SubreaperScope();
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;

 private:
  bool set_ = false;
};

}  // namespace strobe::record
