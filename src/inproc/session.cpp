#include "inproc/session.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <optional>
#include <set>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "inproc/collector.hpp"
#include "inproc/jit_registry.hpp"
#include "inproc/spans.hpp"
#include "model/spans.hpp"
#include "perf/event.hpp"

namespace strobe::inproc {
namespace {

struct Running {
  Options opt;
  std::unique_ptr<Engine> engine;
  Collector collector;
  SessionInfo info;
  std::thread drainer;
  bool stopping = false;
  Fd wake;                    // an eventfd: stop() writes it to end the drain thread's wait
  std::set<int32_t> refused;  // live threads the engine could not sample
  uint64_t start_cpu_ns = 0;  // CLOCK_PROCESS_CPUTIME_ID at start
  // The process's spans and roles (spans.hpp), read as the in-process reader.
  std::unique_ptr<channel::Consumer> spans;
};

// Spans and roles drained from the channel go into the collector.
class CollectorSink final : public channel::Sink {
 public:
  explicit CollectorSink(Collector& c) : c_(c) {}
  void span(const channel::SpanEvent& s) override { c_.addSpan(s); }
  void role(int32_t tid, std::string_view role, int32_t index) override {
    c_.setRole(tid, model::roleLabel(role, index));
  }

 private:
  Collector& c_;
};

// With g_state_mu held.
void drainSpans(Running& r) {
  if (!r.spans) return;
  CollectorSink sink(r.collector);
  r.spans->drain(sink);
}

struct Last {
  std::unique_ptr<model::Profile> profile;
  std::string engine;
  std::string fallback_reason;
  uint64_t dropped = 0;
  uint64_t samples = 0;
  uint64_t dropped_spans = 0;
  std::string stopped_reason;
};

// Lock order: g_api_mu, then g_state_mu. Only constant-initialized globals
// here: a preloaded libstrobe starts profiling from its ELF constructor,
// which may run before this file's dynamic initializers. The rest is
// allocated on first use (and never destroyed, so exit handlers can use it).
std::mutex g_api_mu;    // start, stop, the last profile
std::mutex g_state_mu;  // g_run, its engine and collector, internal()
Running* g_run = nullptr;
std::atomic<bool> g_running{false};
thread_local bool t_internal = false;

// Tids of libstrobe's own threads.
std::set<int32_t>& internal() {
  static auto* s = new std::set<int32_t>();
  return *s;
}
Last& last() {
  static auto* l = new Last();
  return *l;
}

int32_t selfTid() {
  return static_cast<int32_t>(::syscall(SYS_gettid));
}

// The top of the calling thread's stack, 0 when unknown.
uint64_t selfStackTop() {
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return 0;
  void* base = nullptr;
  size_t size = 0;
  uint64_t top = 0;
  if (::pthread_attr_getstack(&attr, &base, &size) == 0) {
    top = reinterpret_cast<uint64_t>(base) + size;
  }
  ::pthread_attr_destroy(&attr);
  return top;
}

// With g_state_mu held.
void addThreadLocked(Running& r, int32_t tid, uint64_t stack_hi) {
  if (internal().contains(tid) || r.refused.contains(tid) || r.engine->hasThread(tid)) return;
  Status s = r.engine->addThread(tid, stack_hi);
  if (s.ok()) return;
  r.refused.insert(tid);
  // A thread that exited before its event or timer was set up was not refused.
  if (s.error().kind == ErrorKind::kNotFound ||
      ::access(("/proc/self/task/" + std::to_string(tid)).c_str(), F_OK) != 0) {
    return;
  }
  ++r.info.refused_threads;
  if (r.info.refused_reason.empty()) r.info.refused_reason = s.error().describe();
}

uint64_t processCpuNs() {
  timespec ts{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// With g_state_mu held: new threads in, exited threads out.
void rescanLocked(Running& r) {
  std::vector<int32_t> live = listThreads();
  std::sort(live.begin(), live.end());
  for (int32_t tid : live) addThreadLocked(r, tid, 0);
  for (int32_t tid : r.engine->threads()) {
    if (!std::binary_search(live.begin(), live.end(), tid))
      r.engine->removeThread(tid, r.collector);
  }
  std::erase_if(r.refused,
                [&](int32_t tid) { return !std::binary_search(live.begin(), live.end(), tid); });
  r.engine->maintain();
}

// Sleeps until the engine's buffers need draining (its waitFd()), the
// engine's longest safe interval passes, a rescan is due or stop() wakes it;
// then drains. Waits without the state mutex.
void drainLoop(Running* r) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kRescan = std::chrono::milliseconds(100);
  int engine_fd = -1;
  std::chrono::milliseconds interval{};
  {
    std::lock_guard lock(g_state_mu);
    engine_fd = r->engine->waitFd();
    interval = std::chrono::milliseconds(r->engine->drainIntervalMs());
  }
  auto next_rescan = Clock::now() + kRescan;
  while (true) {
    auto until_rescan = std::chrono::ceil<std::chrono::milliseconds>(next_rescan - Clock::now());
    auto timeout =
        std::clamp(std::min(interval, until_rescan), std::chrono::milliseconds(0), interval);
    pollfd fds[2] = {{r->wake.get(), POLLIN, 0}, {engine_fd, POLLIN, 0}};
    (void)::poll(fds, 2, static_cast<int>(timeout.count()));
    std::lock_guard lock(g_state_mu);
    if (r->stopping) break;
    r->engine->drain(r->collector);
    drainSpans(*r);
    auto now = Clock::now();
    if (now >= next_rescan) {
      rescanLocked(*r);
      next_rescan = now + kRescan;
    }
  }
}

void atforkPrepare() {
  g_state_mu.lock();
}
void atforkParent() {
  g_state_mu.unlock();
}
void atforkChild() {
  // Only this thread exists now. The profiler's threads and timers did not
  // survive fork; drop the session without touching them (leaked on purpose:
  // the drain thread's std::thread must not be destroyed, and a mutex held
  // by a vanished thread is re-created).
  if (g_run != nullptr) {
    g_run->engine->abandonAfterFork();
    g_run->wake.reset();
    g_run = nullptr;
  }
  g_running.store(false);
  internal().clear();
  new (&g_api_mu) std::mutex();
  g_state_mu.unlock();
}

void registerAtfork() {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(atforkPrepare, atforkParent, atforkChild); });
}

bool cpuTimeEvent(const std::string& event) {
  return event == "cpu-clock" || event == "task-clock";
}

Status validate(const Options& o) {
  if (o.frequency == 0 || o.frequency > 100000) {
    return makeError("sampling frequency " + std::to_string(o.frequency) + " Hz is out of range",
                     "use 1 to 100000 Hz (99 by default)", ErrorKind::kUsage);
  }
  if (o.max_depth == 0 || o.max_depth > 256) {
    return makeError("maximum stack depth " + std::to_string(o.max_depth) + " is out of range",
                     "use 1 to 256 frames (64 by default)", ErrorKind::kUsage);
  }
  if (o.buffer_samples == 1 || o.buffer_samples > (1U << 20)) {
    return makeError("buffer capacity " + std::to_string(o.buffer_samples) + " is out of range",
                     "use 2 to 1048576 samples per thread, or 0 to size it from the rate",
                     ErrorKind::kUsage);
  }
  if (auto tc = perf::eventTypeConfig(o.event); !tc.ok()) return tc.takeError();
  // The timer engine measures CPU time only, and sees no kernel frames.
  const bool timer = o.engine == EngineKind::kTimer || o.mode == Mode::kWall;
  if (timer && !cpuTimeEvent(o.event)) {
    return makeError("the timer engine samples CPU time, not " + o.event,
                     "use the perf engine (engine auto or perf) in cpu mode for other events",
                     ErrorKind::kUsage);
  }
  if (timer && o.kernel) {
    return makeError("kernel frames need the perf engine",
                     "use the perf engine (engine auto or perf) in cpu mode, or leave kernel off",
                     ErrorKind::kUsage);
  }
  return {};
}

}  // namespace

bool isInternalThread() {
  return t_internal;
}

void setInternalThreadFlag(bool on) {
  t_internal = on;
}

void setInternalThread(bool on) {
  t_internal = on;
  std::lock_guard lock(g_state_mu);
  int32_t tid = selfTid();
  if (!on) {
    internal().erase(tid);
    return;
  }
  internal().insert(tid);
  if (g_run != nullptr && g_run->engine->hasThread(tid)) {
    g_run->engine->removeThread(tid, g_run->collector);
  }
}

std::thread spawnInternalThread(std::function<void()> fn) {
  // t_internal is inherited by threads created from this one (threads.cpp).
  bool was = t_internal;
  t_internal = true;
  std::thread t([fn = std::move(fn)] {
    setInternalThread(true);
    fn();
    setInternalThread(false);
  });
  t_internal = was;
  return t;
}

void onThreadStart() {
  if (t_internal) {
    setInternalThread(true);
    return;
  }
  if (!g_running.load(std::memory_order_acquire)) return;
  uint64_t top = selfStackTop();
  std::lock_guard lock(g_state_mu);
  if (g_run != nullptr && !g_run->stopping) addThreadLocked(*g_run, selfTid(), top);
}

void onThreadExit() {
  if (t_internal || !g_running.load(std::memory_order_acquire)) return;
  char name[32] = {};
  if (::pthread_getname_np(::pthread_self(), name, sizeof name) != 0) return;
  const int32_t tid = selfTid();
  std::lock_guard lock(g_state_mu);
  if (g_run != nullptr && !g_run->stopping && g_run->engine->hasThread(tid)) {
    g_run->collector.nameThread(tid, name);
  }
}

Status startSession(const Options& o) {
  if (Status s = validate(o); !s.ok()) return s;
  registerAtfork();
  std::lock_guard api(g_api_mu);
  if (g_running.load()) {
    return makeError("a profiling session is already running",
                     "stop it first (strobe_stop), or wait for the running profile to finish",
                     ErrorKind::kUsage);
  }
  auto run = std::make_unique<Running>();
  run->opt = o;
  run->wake = Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!run->wake.valid()) return systemError("cannot create the drain thread's eventfd");
  const int32_t self = selfTid();
  const uint64_t self_top = selfStackTop();
  std::string fallback;

  std::lock_guard state(g_state_mu);
  auto tryEngine = [&](Result<std::unique_ptr<Engine>> made) -> Status {
    if (!made.ok()) return made.takeError();
    run->engine = std::move(*made);
    if (Status s = run->engine->addThread(self, self_top); !s.ok()) {
      run->engine.reset();
      return s;
    }
    return {};
  };
  if (o.engine == EngineKind::kPerf) {
    if (Status s = tryEngine(makePerfEngine(o)); !s.ok()) return s;
  } else if (o.engine == EngineKind::kTimer || o.mode == Mode::kWall) {
    if (Status s = tryEngine(makeTimerEngine(o)); !s.ok()) return s;
  } else {
    if (Status s = tryEngine(makePerfEngine(o)); !s.ok()) {
      // The timer engine would sample something else than what was asked.
      if (!cpuTimeEvent(o.event) || o.kernel) return s;
      fallback = s.error().describe();
      if (Status t = tryEngine(makeTimerEngine(o)); !t.ok()) return t;
    }
  }
  // The running threads (this one is in already).
  for (int32_t tid : listThreads()) addThreadLocked(*run, tid, 0);

  // Spans from now on (without a channel, the profile simply has none).
  if (auto reader = spans::openSessionReader(); reader.ok()) run->spans = std::move(*reader);
  run->start_cpu_ns = processCpuNs();
  run->info.start_monotonic_ns = monotonicNs();
  run->info.start_realtime_ns = realtimeNs();
  run->info.frequency = o.frequency;
  run->info.event = o.mode == Mode::kWall ? "wall-clock" : o.event;
  run->info.engine = run->engine->name();
  last() = Last{};
  last().engine = run->info.engine;
  last().fallback_reason = fallback;
  g_run = run.release();
  jitSessionBegin();  // unregistered JIT code is kept until the profile is built
  g_running.store(true, std::memory_order_release);
  g_run->drainer = spawnInternalThread([r = g_run] { drainLoop(r); });
  return {};
}

Status stopSession() {
  std::lock_guard api(g_api_mu);
  Running* r = nullptr;
  {
    std::lock_guard state(g_state_mu);
    if (g_run == nullptr) {
      return makeError("no profiling session is running", "start one first (strobe_start)",
                       ErrorKind::kUsage);
    }
    r = g_run;
    r->stopping = true;
    g_running.store(false);
  }
  const uint64_t one = 1;
  // An eventfd write of 8 bytes cannot fail short of overflowing its counter.
  (void)!::write(r->wake.get(), &one, sizeof one);
  r->drainer.join();
  {
    std::lock_guard state(g_state_mu);
    for (int32_t tid : r->engine->threads()) r->collector.noteThread(tid);
    r->engine->stop(r->collector);
    r->info.dropped = r->engine->dropped();
    drainSpans(*r);
    if (r->spans) {
      r->info.dropped_spans = r->spans->stats().lost();
      r->spans.reset();  // leaves: the program stops recording spans for us
    }
    r->info.stopped_reason = r->engine->stoppedReason();
    g_run = nullptr;
  }
  std::unique_ptr<Running> owned(r);
  owned->info.duration_ns = monotonicNs() - owned->info.start_monotonic_ns;
  owned->info.process_cpu_ns = processCpuNs() - owned->start_cpu_ns;
  std::vector<std::string> warnings;
  last().profile =
      std::make_unique<model::Profile>(owned->collector.toProfile(owned->info, &warnings));
  jitSessionEnd();
  last().dropped = owned->info.dropped;
  last().samples = owned->collector.sampleCount();
  last().dropped_spans = owned->info.dropped_spans;
  last().stopped_reason = owned->info.stopped_reason;
  return {};
}

bool sessionRunning() {
  return g_running.load();
}

Status withLastProfile(const std::function<Status(const model::Profile&)>& f) {
  std::lock_guard api(g_api_mu);
  if (!last().profile) {
    return makeError("no profile yet", "profile first: strobe_start, then strobe_stop",
                     ErrorKind::kUsage);
  }
  return f(*last().profile);
}

std::string engineName() {
  std::lock_guard api(g_api_mu);
  return last().engine;
}

std::string engineFallbackReason() {
  std::lock_guard api(g_api_mu);
  return last().fallback_reason;
}

Status samplingStoppedEarly() {
  std::lock_guard api(g_api_mu);
  if (last().stopped_reason.empty()) return {};
  return makeError(last().stopped_reason, kStoppedEarlyHint);
}

uint64_t droppedSamples() {
  std::lock_guard api(g_api_mu);
  std::lock_guard state(g_state_mu);
  if (g_run != nullptr) return g_run->engine->dropped();
  return last().dropped;
}

uint64_t sampleCount() {
  std::lock_guard api(g_api_mu);
  std::lock_guard state(g_state_mu);
  if (g_run != nullptr) {
    g_run->engine->drain(g_run->collector);
    return g_run->collector.sampleCount();
  }
  return last().samples;
}

uint64_t droppedSpans() {
  std::lock_guard api(g_api_mu);
  std::lock_guard state(g_state_mu);
  if (g_run != nullptr) {
    drainSpans(*g_run);
    return g_run->spans ? g_run->spans->stats().lost() : 0;
  }
  return last().dropped_spans;
}

Status withSnapshot(const std::function<Status(const model::Profile&)>& f) {
  std::lock_guard api(g_api_mu);
  std::optional<Collector> copy;
  SessionInfo info;
  uint64_t start_cpu = 0;
  {
    std::lock_guard state(g_state_mu);
    if (g_run == nullptr) {
      if (!last().profile) {
        return makeError("no profile yet", "start a session first (strobe_start)",
                         ErrorKind::kUsage);
      }
      return f(*last().profile);
    }
    // Everything sampled so far, copied under the lock; the session goes on
    // while the copy is symbolized.
    g_run->engine->drain(g_run->collector);
    drainSpans(*g_run);
    for (int32_t tid : g_run->engine->threads()) g_run->collector.noteThread(tid);
    copy.emplace(g_run->collector);
    info = g_run->info;
    info.dropped = g_run->engine->dropped();
    info.dropped_spans = g_run->spans ? g_run->spans->stats().lost() : 0;
    start_cpu = g_run->start_cpu_ns;
  }
  info.duration_ns = monotonicNs() - info.start_monotonic_ns;
  info.process_cpu_ns = processCpuNs() - start_cpu;
  return f(copy->toProfile(info, nullptr));
}

}  // namespace strobe::inproc
