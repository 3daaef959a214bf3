#include "record/session_signals.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace strobe::record {
namespace {

std::atomic<pid_t> g_forward_to{-1};
std::atomic<bool> g_stop{false};
int g_wake_write = -1;

void wake() {
  char b = 0;
  if (g_wake_write >= 0) {
    ssize_t n = ::write(g_wake_write, &b, 1);
    (void)n;
  }
}

void onStopSignal(int sig, siginfo_t* info, void*) {
  int saved = errno;
  pid_t child = g_forward_to.load();
  if (child > 0) {
    // Ctrl-C at the terminal (SI_KERNEL) already reached the command's
    // process group; forward only what was sent to strobe alone.
    if (info != nullptr && info->si_code != SI_KERNEL) ::kill(child, sig);
  } else {
    g_stop = true;
    wake();
  }
  errno = saved;
}

void onChild(int) {
  int saved = errno;
  wake();
  errno = saved;
}

}  // namespace

SignalScope::SignalScope(pid_t child, int wake_fd) {
  g_forward_to = child;
  g_stop = false;
  g_wake_write = wake_fd;
  struct sigaction sa = {};
  sa.sa_sigaction = onStopSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
  struct sigaction sc = {};
  sc.sa_handler = onChild;
  sc.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sc.sa_mask);
  ::sigaction(SIGCHLD, &sc, &old_chld_);
}

SignalScope::~SignalScope() {
  for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
  ::sigaction(SIGCHLD, &old_chld_, nullptr);
  g_forward_to = -1;
  g_wake_write = -1;
}

bool SignalScope::stopRequested() {
  return g_stop.load();
}

void SignalScope::stopForwarding() {
  g_forward_to = -1;
}

SubreaperScope::SubreaperScope(bool on) {
  int was = 0;
  if (!on || ::prctl(PR_GET_CHILD_SUBREAPER, &was) != 0) return;
  if (was == 0 && ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) set_ = true;
}

SubreaperScope::~SubreaperScope() {
  if (set_) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace strobe::record
