// Engine: how one in-process session takes samples. Two implementations:
// PerfEngine (perf_event self-profiling, no signal handler) and TimerEngine
// (per-thread POSIX timers + a SIGPROF handler). makeEngine() is the one
// place that picks between them (the `auto` fallback chain).
//
// Threads: the session adds every thread it finds (start, pthread_create,
// /proc/self/task rescans) with addThread() and removes those that exited
// with removeThread(). stack_hi is the top of the thread's stack when known
// (0 otherwise). EngineWithThreads<T> keeps the per-thread table (tid -> T)
// that both engines need; an engine says only how to retire one thread.
// Draining: the session's drain thread sleeps until waitFd() is readable
// (an engine whose buffers can announce that they filled up) or for
// drainIntervalMs() at most, then calls drain().
// Thread safety: the session calls an Engine under its own mutex only; the
// engines add no locking of their own, except that waitFd() is polled
// without it (the descriptor lives as long as the engine). The signal
// handler of TimerEngine touches only its per-thread buffers (see
// timer_engine.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "inproc/collector.hpp"

namespace strobe::inproc {

enum class Mode { kCpu, kWall };
enum class EngineKind { kAuto, kPerf, kTimer };

struct Options {
  uint32_t frequency = 99;
  Mode mode = Mode::kCpu;
  uint32_t max_depth = 64;
  uint32_t buffer_samples = 0;  // timer engine, per thread; 0: timerRingSamples()
  EngineKind engine = EngineKind::kAuto;
  // The sampled event (perf's names, as `strobe record -e`): cpu-clock and
  // task-clock with either engine, any other only with perf.
  std::string event = "cpu-clock";
  bool kernel = false;  // kernel frames too (perf engine only), as `record -k`
};

class Engine {
 public:
  virtual ~Engine() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  // Idempotent per tid. Fails when the thread cannot be sampled.
  virtual Status addThread(int32_t tid, uint64_t stack_hi) = 0;
  [[nodiscard]] virtual bool hasThread(int32_t tid) const = 0;
  [[nodiscard]] virtual std::vector<int32_t> threads() const = 0;
  // The thread exited: drain what it left and free its resources.
  virtual void removeThread(int32_t tid, Collector& c) = 0;
  // Moves new samples into the collector (the drain thread, periodically).
  virtual void drain(Collector& c) = 0;
  // A descriptor that becomes readable when some buffer needs draining, or
  // -1 (then the session drains every drainIntervalMs()).
  [[nodiscard]] virtual int waitFd() const { return -1; }
  // The longest the drain thread may sleep without buffers overflowing.
  [[nodiscard]] virtual uint32_t drainIntervalMs() const = 0;
  // Housekeeping off the signal path (stack bounds learnt, ...).
  virtual void maintain() {}
  // Disarms every thread, drains the rest, releases the resources.
  virtual void stop(Collector& c) = 0;
  // Samples dropped (full buffers) or lost (kernel) so far.
  [[nodiscard]] virtual uint64_t dropped() const = 0;
  // Why the engine stopped sampling before stop() (one line; "" when it
  // did not): the timer engine stops when the program installs its own
  // SIGPROF handler over libstrobe's (checked by maintain() and stop()).
  [[nodiscard]] virtual std::string stoppedReason() const { return {}; }
  // In a forked child: let go of everything without touching the parent's
  // threads (closes descriptors, frees nothing that could be in use).
  virtual void abandonAfterFork() = 0;
};

// The table of sampled threads, tid -> Thread, shared by the engines.
// removeThread() hands the thread to retire() (disarm, drain, account)
// before erasing it.
template <typename Thread>
class EngineWithThreads : public Engine {
 public:
  [[nodiscard]] bool hasThread(int32_t tid) const final { return threads_.contains(tid); }

  [[nodiscard]] std::vector<int32_t> threads() const final {
    std::vector<int32_t> v;
    v.reserve(threads_.size());
    for (const auto& [tid, t] : threads_) v.push_back(tid);
    return v;
  }

  void removeThread(int32_t tid, Collector& c) final {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return;
    retire(it->second, c);
    threads_.erase(it);
  }

 protected:
  // The thread is gone (or leaves the session): stop sampling it and drain
  // what it left.
  virtual void retire(Thread& t, Collector& c) = 0;

  std::map<int32_t, Thread> threads_;
};

// The timer engine's per-thread ring, in samples, when Options leave it to
// the engine (buffer_samples 0): 250 ms of the signals a thread can get
// (CPU-clock timers fire at most once per scheduler tick: the rate counts at
// most 1000 Hz; wall-clock timers are not so capped), rounded up to a power
// of two, at least 16. Each sample takes 8 * (3 + max_depth) bytes.
uint32_t timerRingSamples(const Options& o);
// The bytes one thread's ring takes in the timer engine.
uint64_t timerRingBytes(const Options& o);

// A perf engine; it opens events as threads are added (the first addThread
// failing means perf_event is refused here).
Result<std::unique_ptr<Engine>> makePerfEngine(const Options& o);
// A timer engine with its SIGPROF handler installed; fails when the program
// already handles SIGPROF.
Result<std::unique_ptr<Engine>> makeTimerEngine(const Options& o);

}  // namespace strobe::inproc
