// bench/spans: what a span costs the program (Google Benchmark), against
// the floor (the two clock reads a span needs) and a naive logger (a mutex
// and a vector), with libstrobe's core linked in so the benchmark can drain
// the rings itself (the recording case measures the hot path, not the drop
// path: drops are counted and printed, and should be 0).
//
//   SpanPair/idle       begin+end while nothing records (one load, a branch)
//   SpanPair/recording  begin+end while a reader has joined the channel
//   ClockPair           two clock_gettime(CLOCK_MONOTONIC): the floor
//   MutexLogger         the same span kept by a mutex-guarded vector
#include <benchmark/benchmark.h>

#include <mutex>
#include <vector>

#include "base/clock.hpp"
#include "channel/consumer.hpp"
#include "inproc/spans.hpp"

namespace {

using strobe::inproc::spans::begin;
using strobe::inproc::spans::end;

// As the exported entry points (span_api.cpp), one call each.
__attribute__((noinline)) void spanBegin(const char* name) {
  begin(name);
}
__attribute__((noinline)) void spanEnd() {
  end();
}

struct NullSink : strobe::channel::Sink {
  uint64_t spans = 0;
  void span(const strobe::channel::SpanEvent&) override { ++spans; }
  void role(int32_t, std::string_view, int32_t) override {}
};

// A reader of the process's channel, drained by the benchmark itself with
// the timer paused before the ring can fill (the drop path is not the hot
// path; a reader thread would starve on a loaded machine).
class Reader {
 public:
  Reader() {
    strobe::channel::Producer* p = strobe::inproc::spans::producer();
    auto c = strobe::channel::Consumer::borrow(p->base(), p->size());
    consumer_ = std::move(*c);
    (void)consumer_->join(strobe::channel::kReaderExternal, 1);
  }
  ~Reader() { consumer_->leave(); }
  void drain() { consumer_->drain(sink_); }
  [[nodiscard]] uint64_t dropped() const { return consumer_->stats().lost(); }

 private:
  std::unique_ptr<strobe::channel::Consumer> consumer_;
  NullSink sink_;
};

void SpanPairIdle(benchmark::State& state) {
  (void)strobe::inproc::spans::producer();  // the channel exists, no reader
  for (auto _ : state) {
    spanBegin("request");
    spanEnd();
  }
}
BENCHMARK(SpanPairIdle)->Name("SpanPair/idle");

void SpanPairRecording(benchmark::State& state) {
  Reader r;
  uint32_t n = 0;
  for (auto _ : state) {
    spanBegin("request");
    spanEnd();
    if (++n == 4096) {  // a quarter of the ring
      state.PauseTiming();
      r.drain();
      n = 0;
      state.ResumeTiming();
    }
  }
  r.drain();
  state.counters["dropped"] = static_cast<double>(r.dropped());
}
BENCHMARK(SpanPairRecording)->Name("SpanPair/recording");

void ClockPair(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(strobe::monotonicNs());
    benchmark::DoNotOptimize(strobe::monotonicNs());
  }
}
BENCHMARK(ClockPair);

std::mutex g_mu;
struct Kept {
  const char* name;
  uint64_t start, end;
};
std::vector<Kept> g_kept;

void MutexLogger(benchmark::State& state) {
  g_kept.reserve(1 << 20);
  for (auto _ : state) {
    uint64_t start = strobe::monotonicNs();
    uint64_t stop = strobe::monotonicNs();
    std::lock_guard lock(g_mu);
    if (g_kept.size() == g_kept.capacity()) g_kept.clear();
    g_kept.push_back(Kept{"request", start, stop});
  }
}
BENCHMARK(MutexLogger);

}  // namespace

BENCHMARK_MAIN();
