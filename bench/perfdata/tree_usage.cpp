// tree_usage: runs a command and prints the CPU (user + system seconds) of
// the command and of every process it started, waited for or not, and the
// largest resident set any of them had, as one line on stderr:
//   "cpu_s=1.234 user_s=1.000 sys_s=0.234 max_rss_kb=56789 wall_s=2.000"
// perf report runs addr2line helpers that it may not wait for; as their
// subreaper, tree_usage collects them, so their CPU is counted too.
// Usage: tree_usage CMD [ARGS...]; exits with the command's status.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tree_usage CMD [ARGS...]\n");
    return 2;
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child == 0) {
    ::execvp(argv[1], argv + 1);
    std::perror(argv[1]);
    _exit(127);
  }
  int status = 0, code = 1;
  for (;;) {
    int st = 0;
    const pid_t w = ::waitpid(-1, &st, 0);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;  // ECHILD: every descendant is collected
    if (w == child) status = st;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  ::getrusage(RUSAGE_CHILDREN, &ru);
  const double user = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
  const double sys = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
  std::fprintf(stderr, "cpu_s=%.3f user_s=%.3f sys_s=%.3f max_rss_kb=%ld wall_s=%.3f\n", user + sys,
               user, sys, ru.ru_maxrss, wall);
  if (WIFEXITED(status)) code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
  return code;
}
