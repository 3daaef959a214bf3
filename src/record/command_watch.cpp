#include "record/command_watch.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "record/proc.hpp"
#include "record/session_signals.hpp"

namespace strobe::record {
namespace {

uint64_t timevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
}

}  // namespace

bool CommandWatch::poll(uint64_t now_ns, uint64_t deadline_ns, bool stop) {
  // The command, and (as their reaper) its orphaned descendants.
  bool children_left = true;
  for (;;) {
    int st = 0;
    struct rusage ru = {};
    const pid_t w = ::wait4(follow_ ? -1 : pid_, &st, WNOHANG, &ru);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      children_left = w == 0;
      break;
    }
    user_ns_ += timevalNs(ru.ru_utime);
    system_ns_ += timevalNs(ru.ru_stime);
    if (w == pid_) {
      status_ = st;
      done_ = true;
      command_ns_ = now_ns - released_ns_;
      // From now on a signal to strobe ends the recording (the
      // descendants are left alone), as when attached.
      SignalScope::stopForwarding();
    }
  }
  if (done_) {
    if (!follow_ || !children_left) return true;
    // Descendants still running: follow them until they end, unless the
    // recording is stopped (a signal, -d, a live view's end).
    if (stop || now_ns >= deadline_ns) {
      descendants_left_ = countLiveDescendants(::getpid());
      return true;
    }
  } else if (now_ns >= deadline_ns) {
    if (terminated_ns_ == 0) {
      ::kill(pid_, SIGTERM);
      terminated_ns_ = now_ns;
    } else if (!killed_ && now_ns - terminated_ns_ >= kKillGraceNs) {
      // -d is a hard limit: a command that ignores SIGTERM is killed.
      ::kill(pid_, SIGKILL);
      killed_ = true;
    }
  }
  return false;
}

int CommandWatch::exitStatus() const {
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return 1;
}

}  // namespace strobe::record
