// TimerEngine: per-thread POSIX timers and a SIGPROF handler.
//
// Each sampled thread has a TimerThread: a timer (timer_create on the
// thread's CPU clock, or CLOCK_MONOTONIC in wall mode) that sends SIGPROF to
// that thread only (SIGEV_THREAD_ID) with si_value pointing at the
// TimerThread, and a SampleRing the handler fills. Never setitimer: it
// delivers to whichever thread runs and is capped by the kernel tick.
// The handler (SA_SIGINFO|SA_RESTART|SA_ONSTACK) saves errno, counts itself
// in an in-flight counter, ignores signals that are not from a timer of the
// current session, walks frame pointers (fp_walk.hpp) into the ring and
// restores errno: no allocation, no locks, no unwinder, no loader calls.
// Stop: the session is marked inactive, the timers are deleted, the engine
// waits until no handler is in flight, restores the previous SIGPROF
// disposition, then frees the buffers.
// A program that installs its own SIGPROF handler while the engine runs
// would get the engine's signals (and the profile none): maintain() (every
// 100 ms) and stop() check the disposition; once it is not the engine's,
// every timer is deleted, no new thread is armed, the program's handler is
// left in place (never overwritten at stop) and stoppedReason() says when.
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>

#include "base/clock.hpp"
#include "inproc/engine.hpp"
#include "inproc/fp_walk.hpp"
#include "inproc/sample_ring.hpp"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

namespace strobe::inproc {
namespace {

constexpr uint64_t kMagic = 0x7374726f62657432ULL;  // "strobet2"
// A thread's ring holds this long of its samples (see timerRingSamples).
constexpr uint64_t kRingMs = 250;
// CPU-clock timers expire on scheduler ticks (CONFIG_HZ, at most 1000):
// above that a timer fires once per tick, with overruns.
constexpr uint64_t kMaxTickHz = 1000;

// The most signals per second a thread's timer sends.
uint64_t signalRate(const Options& o) {
  const uint64_t hz = std::max<uint32_t>(o.frequency, 1);
  return o.mode == Mode::kWall ? hz : std::min(hz, kMaxTickHz);
}

struct TimerThread {
  TimerThread(int32_t t, uint64_t hi, uint64_t period, uint32_t gen, const Options& o)
      : tid(t), generation(gen), period_ns(period), ring(timerRingSamples(o), o.max_depth) {
    stack_hi.store(hi, std::memory_order_relaxed);
  }
  const uint64_t magic = kMagic;
  const int32_t tid;
  const uint32_t generation;
  const uint64_t period_ns;
  std::atomic<uint64_t> stack_hi{0};  // 0: unknown, reads are probed
  std::atomic<uint64_t> last_sp{0};   // lets maintain() learn the stack's bounds
  timer_t timer{};
  bool armed = false;
  SampleRing ring;
};

std::atomic<bool> g_active{false};
std::atomic<int> g_inflight{0};
std::atomic<uint32_t> g_generation{0};
// Bumped (release) after a TimerThread is built and before its timer is
// armed; the handler loads it (acquire) first. The kernel already orders
// timer_settime before the signal; this states it in the C++ model, which
// is what ThreadSanitizer checks.
std::atomic<uint64_t> g_published{0};
pid_t g_pid = 0;

void onSigprof(int /*sig*/, siginfo_t* info, void* uc) {
  const int saved_errno = errno;
  g_inflight.fetch_add(1);
  (void)g_published.load(std::memory_order_acquire);
  if (info != nullptr && info->si_code == SI_TIMER && g_active.load()) {
    auto* t = static_cast<TimerThread*>(info->si_value.sival_ptr);
    if (t != nullptr && t->magic == kMagic &&
        t->generation == g_generation.load(std::memory_order_relaxed)) {
      if (uint64_t* frames = t->ring.beginWrite()) {
        Regs r = regsFromContext(uc);
        t->last_sp.store(r.sp, std::memory_order_relaxed);
        uint32_t n = walkFramePointers(r, t->stack_hi.load(std::memory_order_relaxed), g_pid,
                                       frames, t->ring.maxDepth());
        uint64_t overrun = info->si_overrun > 0 ? static_cast<uint64_t>(info->si_overrun) : 0;
        t->ring.commit(monotonicNs(), (1 + overrun) * t->period_ns, n);
      }
    }
  }
  g_inflight.fetch_sub(1);
  errno = saved_errno;
}

// The CPU clock of thread `tid` of this process (glibc's make_thread_cpuclock):
// unlike CLOCK_THREAD_CPUTIME_ID it can be named from another thread.
clockid_t threadCpuClock(int32_t tid) {
  return static_cast<clockid_t>((~static_cast<unsigned>(tid)) << 3) | 4 /*per thread*/ |
         2 /*CPUCLOCK_SCHED*/;
}

// [start, end) of the mapping holding `addr`, from /proc/self/maps.
uint64_t mappingEnd(uint64_t addr) {
  std::FILE* f = std::fopen("/proc/self/maps", "re");
  if (f == nullptr) return 0;
  char line[512];
  uint64_t found = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx", &start, &end) == 2 && addr >= start && addr < end) {
      found = end;
      break;
    }
  }
  std::fclose(f);
  return found;
}

class TimerEngine final : public EngineWithThreads<std::unique_ptr<TimerThread>> {
 public:
  explicit TimerEngine(const Options& o) : opt_(o) {}
  ~TimerEngine() override {
    if (installed_) {
      Collector sink;
      stop(sink);
    }
  }

  Status install() {
    struct sigaction old {};
    if (::sigaction(SIGPROF, nullptr, &old) != 0) {
      return systemError("cannot read the SIGPROF disposition");
    }
    bool has_handler = (old.sa_flags & SA_SIGINFO) != 0
                           ? old.sa_sigaction != nullptr
                           : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
    if (has_handler) {
      return makeError(
          "the program already handles SIGPROF, which the timer engine needs",
          "stop the program's own profiler (gperftools, setitimer) or use the perf engine",
          ErrorKind::kUnsupported);
    }
    g_pid = ::getpid();
    g_generation.fetch_add(1);
    struct sigaction sa {};
    sa.sa_sigaction = onSigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (::sigaction(SIGPROF, &sa, &old_) != 0) return systemError("cannot install SIGPROF handler");
    installed_ = true;
    g_active.store(true);
    return {};
  }

  [[nodiscard]] const char* name() const override { return "timer"; }

  Status addThread(int32_t tid, uint64_t stack_hi) override {
    if (threads_.contains(tid) || !stopped_reason_.empty()) return {};
    const uint64_t period = 1'000'000'000ULL / std::max<uint32_t>(opt_.frequency, 1);
    auto t = std::make_unique<TimerThread>(tid, stack_hi, period,
                                           g_generation.load(std::memory_order_relaxed), opt_);
    g_published.fetch_add(1, std::memory_order_release);
    sigevent sev{};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev.sigev_value.sival_ptr = t.get();
    sev.sigev_notify_thread_id = tid;
    clockid_t clock = opt_.mode == Mode::kWall ? CLOCK_MONOTONIC : threadCpuClock(tid);
    if (::timer_create(clock, &sev, &t->timer) != 0) {
      return systemError("cannot create a sampling timer for thread " + std::to_string(tid),
                         "the thread may have exited, or RLIMIT_SIGPENDING is too low");
    }
    t->armed = true;
    // Stagger first expiries so threads are not all sampled at once.
    uint64_t first = period / 2 + (static_cast<uint64_t>(tid) * 2654435761ULL) % period;
    itimerspec its{};
    its.it_interval.tv_sec = static_cast<time_t>(period / 1'000'000'000ULL);
    its.it_interval.tv_nsec = static_cast<long>(period % 1'000'000'000ULL);
    its.it_value.tv_sec = static_cast<time_t>(first / 1'000'000'000ULL);
    its.it_value.tv_nsec = static_cast<long>(first % 1'000'000'000ULL);
    if (::timer_settime(t->timer, 0, &its, nullptr) != 0) {
      Error e = systemError("cannot arm the sampling timer of thread " + std::to_string(tid));
      ::timer_delete(t->timer);
      return e;
    }
    threads_.emplace(tid, std::move(t));
    return {};
  }

  void drain(Collector& c) override {
    for (auto& [tid, t] : threads_) drainOne(*t, c);
  }

  // Half a thread's ring at the rate its signals can come (the drain thread
  // may be late), at least 1 ms; the session rescans threads every 100 ms
  // anyway.
  [[nodiscard]] uint32_t drainIntervalMs() const override {
    uint64_t ms = uint64_t{timerRingSamples(opt_)} * 1000 / 2 / signalRate(opt_);
    return static_cast<uint32_t>(std::clamp<uint64_t>(ms, 1, 100));
  }

  void maintain() override {
    checkDisplaced();
    for (auto& [tid, t] : threads_) {
      if (t->stack_hi.load(std::memory_order_relaxed) != 0) continue;
      uint64_t sp = t->last_sp.load(std::memory_order_relaxed);
      if (sp != 0) t->stack_hi.store(mappingEnd(sp), std::memory_order_relaxed);
    }
  }

  void stop(Collector& c) override {
    if (!installed_) return;
    checkDisplaced();
    g_active.store(false);
    for (auto& [tid, t] : threads_) {
      if (t->armed) ::timer_delete(t->timer);
      t->armed = false;
    }
    // A handler may have begun before the store above: wait it out.
    timespec pause{0, 1'000'000};
    ::nanosleep(&pause, nullptr);
    while (g_inflight.load() != 0) ::nanosleep(&pause, nullptr);
    if (stopped_reason_.empty()) ::sigaction(SIGPROF, &old_, nullptr);
    installed_ = false;
    for (auto& [tid, t] : threads_) {
      drainOne(*t, c);
      dropped_retired_ += t->ring.dropped();
    }
    threads_.clear();
  }

  [[nodiscard]] std::string stoppedReason() const override { return stopped_reason_; }

  [[nodiscard]] uint64_t dropped() const override {
    uint64_t n = dropped_retired_;
    for (const auto& [tid, t] : threads_) n += t->ring.dropped();
    return n;
  }

  void abandonAfterFork() override {
    // Timers are not inherited by fork; the handler is. Restore the old one
    // and keep the buffers (never freed: leaking is safe here).
    g_active.store(false);
    if (installed_ && stopped_reason_.empty()) ::sigaction(SIGPROF, &old_, nullptr);
    installed_ = false;
    for (auto& [tid, t] : threads_) (void)t.release();
    threads_.clear();
  }

 private:
  void retire(std::unique_ptr<TimerThread>& t, Collector& c) override {
    if (t->armed) ::timer_delete(t->timer);
    t->armed = false;
    drainOne(*t, c);
    // The thread is gone (or no longer armed), so no handler can be
    // running on its buffer.
    dropped_retired_ += t->ring.dropped();
  }

  // Whether SIGPROF still runs onSigprof; if not (the program installed its
  // own handler), stops every timer so that no more of the engine's signals
  // reach the program's handler, and says so in stopped_reason_.
  void checkDisplaced() {
    if (!stopped_reason_.empty()) return;
    struct sigaction now {};
    if (::sigaction(SIGPROF, nullptr, &now) != 0) return;
    if ((now.sa_flags & SA_SIGINFO) != 0 && now.sa_sigaction == onSigprof) return;
    const double at_s = static_cast<double>(monotonicNs() - start_ns_) / 1e9;
    char text[160];
    std::snprintf(text, sizeof text,
                  "the program installed its own SIGPROF handler over libstrobe's (found %.2f s "
                  "into the session): the timer engine stopped sampling then",
                  at_s);
    stopped_reason_ = text;
    for (auto& [tid, t] : threads_) {
      if (t->armed) ::timer_delete(t->timer);
      t->armed = false;
    }
  }

  static void drainOne(TimerThread& t, Collector& c) {
    t.ring.drain([&](uint64_t time, uint64_t weight, const uint64_t* frames, uint32_t n) {
      c.add(t.tid, time, weight, frames, n);
    });
  }

  Options opt_;
  uint64_t start_ns_ = monotonicNs();
  std::string stopped_reason_;  // "" while sampling
  bool installed_ = false;
  struct sigaction old_ {};
  uint64_t dropped_retired_ = 0;
};

}  // namespace

uint32_t timerRingSamples(const Options& o) {
  if (o.buffer_samples != 0) return o.buffer_samples;
  const uint64_t samples = signalRate(o) * kRingMs / 1000;
  return std::bit_ceil(static_cast<uint32_t>(std::clamp<uint64_t>(samples, 16, 1U << 20)));
}

uint64_t timerRingBytes(const Options& o) {
  return SampleRing::bytesFor(timerRingSamples(o), o.max_depth);
}

Result<std::unique_ptr<Engine>> makeTimerEngine(const Options& o) {
  auto e = std::make_unique<TimerEngine>(o);
  if (Status s = e->install(); !s.ok()) return s.takeError();
  return std::unique_ptr<Engine>(std::move(e));
}

}  // namespace strobe::inproc
