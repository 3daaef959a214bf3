// bench/spans: the program's CPU cost of spans at a given rate. THREADS
// threads each run units of work of about 10 µs of CPU, each unit one span
// "unit" (STROBE_SPAN), for SECONDS; the program prints its CPU time per
// unit (rusage), which bench/spans/run.sh compares across builds and modes:
// compiled out (STROBE_DISABLE), linked and idle, read by the program's own
// libstrobe session (--session), and read by `strobe record`.
//
//   span_load THREADS SECONDS [--session]
#include <sys/resource.h>
#include <time.h>
#include <strobe/strobe.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

volatile uint64_t g_sink;

__attribute__((noinline)) void unitOfWork(uint64_t rounds) {
  uint64_t x = g_sink | 1;
  for (uint64_t i = 0; i < rounds; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
  }
  g_sink = x;
}

uint64_t nowNs(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Rounds of unitOfWork for about 10 µs of this CPU.
uint64_t calibrate() {
  uint64_t rounds = 1000;
  for (;;) {
    uint64_t t0 = nowNs(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < 100; ++i) unitOfWork(rounds);
    uint64_t per = (nowNs(CLOCK_THREAD_CPUTIME_ID) - t0) / 100;
    if (per > 2000) return rounds * 10'000 / per;
    rounds *= 4;
  }
}

std::atomic<uint64_t> g_units{0};

void run(uint64_t rounds, uint64_t until_ns) {
  STROBE_THREAD_ROLE("loader", -1);
  uint64_t n = 0;
  while (nowNs(CLOCK_MONOTONIC) < until_ns) {
    for (int i = 0; i < 100; ++i) {
      STROBE_SPAN("unit");
      unitOfWork(rounds);
    }
    n += 100;
  }
  g_units += n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: span_load THREADS SECONDS [--session]\n");
    return 2;
  }
  int threads = std::atoi(argv[1]);
  double seconds = std::atof(argv[2]);
  bool session = argc > 3 && std::strcmp(argv[3], "--session") == 0;
  uint64_t rounds = calibrate();
  strobe::Session* s = session ? new strobe::Session() : nullptr;
  struct rusage r0 {};
  getrusage(RUSAGE_SELF, &r0);
  uint64_t until = nowNs(CLOCK_MONOTONIC) + static_cast<uint64_t>(seconds * 1e9);
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) ts.emplace_back(run, rounds, until);
  for (auto& t : ts) t.join();
  struct rusage r1 {};
  getrusage(RUSAGE_SELF, &r1);
  uint64_t dropped = 0;
  if (s != nullptr) {
    s->stop();
    dropped = s->droppedSpans();
    delete s;
  }
  auto us = [](const timeval& a, const timeval& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) * 1e6 +
           static_cast<double>(b.tv_usec - a.tv_usec);
  };
  double cpu_us = us(r0.ru_utime, r1.ru_utime) + us(r0.ru_stime, r1.ru_stime);
  uint64_t units = g_units.load();
  std::printf(
      "span_load: units %llu per_thread_per_s %.0f cpu_ns_per_unit %.1f dropped %llu\n",
      static_cast<unsigned long long>(units), static_cast<double>(units) / threads / seconds,
      cpu_us * 1000.0 / static_cast<double>(units), static_cast<unsigned long long>(dropped));
  return 0;
}
