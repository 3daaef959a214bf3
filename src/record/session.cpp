#include "record/session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <optional>

#include "base/clock.hpp"
#include "perf/event.hpp"
#include "perf/ring_buffer.hpp"
#include "record/event_queue.hpp"
#include "record/launch.hpp"
#include "unwind/regs.hpp"

namespace strobe::record {
namespace {

// A record read in one drain pass may be older than one still unread in
// another ring by at most the time a pass takes; hold records this long.
constexpr uint64_t kReorderSlackNs = 20'000'000;
constexpr int kPollTimeoutMs = 100;

std::atomic<pid_t> g_forward_to{-1};
int g_wake_write = -1;

void onForwardedSignal(int sig, siginfo_t* info, void*) {
  int saved = errno;
  // Ctrl-C at the terminal (SI_KERNEL) already reached the command's process
  // group; forward only what was sent to strobe alone.
  pid_t child = g_forward_to.load();
  if (child > 0 && info != nullptr && info->si_code != SI_KERNEL) ::kill(child, sig);
  errno = saved;
}

void onChild(int) {
  int saved = errno;
  char b = 0;
  if (g_wake_write >= 0) {
    ssize_t n = ::write(g_wake_write, &b, 1);
    (void)n;
  }
  errno = saved;
}

// Installs the handlers for the session's lifetime and restores the old ones.
class SignalScope {
 public:
  SignalScope(pid_t child, int wake_fd) {
    g_forward_to = child;
    g_wake_write = wake_fd;
    struct sigaction sa = {};
    sa.sa_sigaction = onForwardedSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
    struct sigaction sc = {};
    sc.sa_handler = onChild;
    sc.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sc.sa_mask);
    ::sigaction(SIGCHLD, &sc, &old_chld_);
  }
  ~SignalScope() {
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
    ::sigaction(SIGCHLD, &old_chld_, nullptr);
    g_forward_to = -1;
    g_wake_write = -1;
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  static constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  std::array<struct sigaction, 4> old_{};
  struct sigaction old_chld_ = {};
};

struct Ring {
  Fd fd;
  perf::RingBuffer buffer;
};

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string kernelRelease() {
  struct utsname u = {};
  if (::uname(&u) != 0) return {};
  return u.release;
}

int shellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

uint64_t cpuNs(const struct rusage& ru) {
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
           static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

}  // namespace

Result<RecordOutcome> recordCommand(const RecordOptions& opt, model::Profile& profile) {
  auto child = HeldChild::spawn(opt.command);
  if (!child) return child.takeError();

  perf::EventSpec spec;
  spec.frequency = opt.frequency;
  spec.callchain = opt.callchain || opt.stack_copy_bytes != 0;
  if (opt.stack_copy_bytes != 0) {
    spec.regs_user = unwind::archRegs().perf_mask;
    spec.stack_user = opt.stack_copy_bytes;
  }
  const size_t ring_bytes = opt.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  perf_event_attr attr =
      perf::makeAttr(spec, /*inherit=*/true, /*enable_on_exec=*/true, ring_bytes / 4);

  // Launch: one event per CPU on the child with inherit, so every thread and
  // child process it creates is followed (an inherited event with cpu = -1
  // cannot be mmapped).
  std::vector<Ring> rings;
  for (int cpu : perf::onlineCpus()) {
    auto fd = perf::openEvent(attr, child->pid(), cpu);
    if (!fd) return fd.takeError();
    auto ring = perf::RingBuffer::map(fd->get(), opt.mmap_pages);
    if (!ring) return ring.takeError();
    rings.push_back(Ring{std::move(*fd), std::move(*ring)});
  }

  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) return systemError("cannot create a pipe");
  Fd wake_read(wake[0]);
  Fd wake_write(wake[1]);

  model::Meta& meta = profile.meta();
  meta.command = opt.command;
  meta.pid = child->pid();
  meta.frequency = opt.frequency;
  meta.event = spec.name;
  meta.call_graph = opt.callchain ? "fp" : "none";
  if (opt.stack_copy_bytes != 0) {
    meta.call_graph = opt.unwind_auto ? "auto" : "dwarf";
    meta.stack_copy_bytes = opt.stack_copy_bytes;
  }
  meta.hostname = hostName();
  meta.kernel = kernelRelease();
  meta.strobe_version = STROBE_VERSION;
  meta.start_realtime_ns = realtimeNs();
  meta.start_monotonic_ns = monotonicNs();

  Converter converter(profile, meta.start_monotonic_ns);
  if (opt.stack_copy_bytes != 0) {
    converter.enableUnwinding(opt.unwind_auto ? unwind::UnwindMode::kAuto
                                              : unwind::UnwindMode::kDwarf);
  }
  EventQueue queue(attr.sample_type, attr.sample_regs_user);
  auto drainAll = [&] {
    for (Ring& r : rings) {
      r.buffer.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
        queue.push(hdr, bytes, size);
      });
    }
  };
  auto apply = [&](const perf::Record& rec) { converter.apply(rec); };

  const pid_t pid = child->pid();
  SignalScope signals(pid, wake_write.get());
  if (auto st = child->release(); !st) return st.takeError();
  child->abandon();

  std::vector<pollfd> fds;
  fds.push_back(pollfd{wake_read.get(), POLLIN, 0});
  for (Ring& r : rings) fds.push_back(pollfd{r.fd.get(), POLLIN, 0});

  RecordOutcome outcome;
  struct rusage ru = {};
  int status = 0;
  for (;;) {
    uint64_t pass_start = monotonicNs();
    drainAll();
    queue.flushBefore(pass_start - kReorderSlackNs, apply);

    pid_t w = ::wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;  // cannot happen for our own child

    if (::poll(fds.data(), fds.size(), kPollTimeoutMs) > 0) {
      char buf[64];
      while (::read(wake_read.get(), buf, sizeof buf) > 0) {
      }
      // An event whose task is gone reports POLLHUP forever: stop polling it
      // (its ring is still drained every pass).
      for (size_t i = 1; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLHUP | POLLERR)) != 0) fds[i].fd = -1;
      }
    }
  }
  meta.duration_ns = monotonicNs() - meta.start_monotonic_ns;
  drainAll();
  queue.flushAll(apply);

  outcome.exit_status = shellStatus(status);
  outcome.stats = converter.stats();
  outcome.malformed_records = queue.malformed();
  meta.lost_samples = outcome.stats.lost;
  meta.throttle_events = outcome.stats.throttled;
  meta.target_cpu_ns = cpuNs(ru);
  meta.exit_status = outcome.exit_status;
  return outcome;
}

}  // namespace strobe::record
