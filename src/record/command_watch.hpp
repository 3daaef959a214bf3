// CommandWatch: a launched command's life as the drain loop sees it. Each
// pass reaps the command and, when following its children (strobe is then
// their subreaper), every orphaned descendant, adding their CPU (rusage).
// The recording ends when the command and (following) every descendant
// exited; when it is stopped (a signal, a live view's end) after the
// command exited, the descendants still running are counted and left
// alone. At the deadline (-d) the command gets SIGTERM, and SIGKILL if it
// has not exited kKillGraceNs later.
// Thread safety: one thread (the session's).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace strobe::record {

// -d: how long a launched command has between SIGTERM and SIGKILL
// (docs/USAGE.md).
inline constexpr uint64_t kKillGraceNs = 2'000'000'000;

class CommandWatch {
 public:
  CommandWatch(pid_t pid, bool follow) : pid_(pid), follow_(follow) {}

  // The command was released to exec at `now_ns`.
  void released(uint64_t now_ns) { released_ns_ = now_ns; }
  // One pass at `now_ns`; `stop`: the recording was asked to stop (signal,
  // live view). True when the recording ends.
  bool poll(uint64_t now_ns, uint64_t deadline_ns, bool stop);

  // SIGTERM was sent: the loop no longer waits for the deadline.
  [[nodiscard]] bool terminating() const { return terminated_ns_ != 0; }
  // As a shell reports it (128+N for signal N).
  [[nodiscard]] int exitStatus() const;
  [[nodiscard]] uint64_t commandNs() const { return command_ns_; }  // exec to exit (0: running)
  [[nodiscard]] size_t descendantsLeft() const { return descendants_left_; }
  [[nodiscard]] bool killed() const { return killed_; }
  // CPU of the command and of every descendant reaped.
  [[nodiscard]] uint64_t userNs() const { return user_ns_; }
  [[nodiscard]] uint64_t systemNs() const { return system_ns_; }

 private:
  pid_t pid_;
  bool follow_;
  uint64_t released_ns_ = 0;
  uint64_t terminated_ns_ = 0;  // when the command got SIGTERM at the deadline
  bool killed_ = false;         // ... and SIGKILL after the grace period
  bool done_ = false;           // the command exited (its children may not have)
  int status_ = 0;
  uint64_t command_ns_ = 0;
  size_t descendants_left_ = 0;
  uint64_t user_ns_ = 0;
  uint64_t system_ns_ = 0;
};

}  // namespace strobe::record
