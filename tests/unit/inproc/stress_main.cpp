// Stress for the sanitizer builds of libstrobe: 64 threads for 5 s at
// 999 Hz (8 of them end and are replaced again and again, and the main
// thread forks and execs /bin/true meanwhile), through the C API; every
// thread has a role and marks each round of work as a span (nested), so the
// span rings are written while the session drains them and while threads
// come and go. Prints the samples kept and dropped and the spans dropped;
// exits 0 when everything completed. A watchdog alarm turns a deadlock into
// a failure.
// Usage: stress ENGINE(perf|timer) [THREADS] [SECONDS]
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "strobe/strobe.h"

namespace {

std::atomic<bool> g_stop{false};

thread_local volatile uint64_t t_sink;  // per thread: no race for TSan to see

__attribute__((noinline)) void churn() {
  // Some heap traffic for ASan to watch, and CPU for the sampler.
  auto buf = std::make_unique<uint64_t[]>(64);
  for (int i = 0; i < 64; ++i) buf[i] = static_cast<uint64_t>(i);
  uint64_t x = t_sink | 1;
  for (uint64_t i = 0; i < 20000 + buf[7]; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
  }
  t_sink = x;
}

// generation < 0: until the end; else a short life (the slot is refilled).
void worker(int generation) {
  strobe_thread_role("stress", generation);
  auto end = generation < 0 ? std::chrono::steady_clock::time_point::max()
                            : std::chrono::steady_clock::now() +
                                  std::chrono::milliseconds(200 + generation * 50);
  // A span per 8 rounds of work and one nested in it (as a service marks
  // requests, not every function call): TSan makes the session's drain of
  // each span slow, and a flood would starve the forks the test makes.
  while (!g_stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < end) {
    strobe_span_begin("round");
    for (int i = 0; i < 8; ++i) {
      if (i == 3) strobe_span_begin("churn");
      churn();
      if (i == 3) strobe_span_end();
    }
    strobe_span_end();
  }
}

}  // namespace

int main(int argc, char** argv) {
  alarm(120);  // a deadlock fails instead of hanging the suite
  const char* engine = argc > 1 ? argv[1] : "timer";
  int nthreads = argc > 2 ? std::atoi(argv[2]) : 64;
  int seconds = argc > 3 ? std::atoi(argv[3]) : 5;
  strobe_options o;
  strobe_options_init(&o);
  o.frequency = 999;
  o.engine = std::strcmp(engine, "perf") == 0 ? STROBE_ENGINE_PERF : STROBE_ENGINE_TIMER;
  if (strobe_start(&o) != 0) {
    std::fprintf(stderr, "%s\n", strobe_last_error());
    return std::strcmp(engine, "perf") == 0 ? 77 : 1;  // 77: perf refused here
  }
  // Each slot runs a thread that ends after a while and is replaced.
  std::vector<std::thread> slots(static_cast<size_t>(nthreads));
  std::vector<std::atomic<bool>> done(static_cast<size_t>(nthreads));
  auto start_slot = [&](size_t i, int gen) {
    done[i] = false;
    slots[i] = std::thread([&, i, gen] {
      worker(gen);
      done[i] = true;
    });
  };
  // The first 8 slots churn; the others run for the whole test.
  auto gen = [](size_t i) { return i < 8 ? static_cast<int>(i) : -1; };
  for (size_t i = 0; i < slots.size(); ++i) start_slot(i, gen(i));
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int forks = 0, bad_children = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (done[i]) {
        slots[i].join();
        start_slot(i, gen(i));
      }
    }
    if (forks < 10) {
      pid_t pid = fork();
      if (pid == 0) {
        execl("/bin/true", "true", static_cast<char*>(nullptr));
        _exit(127);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
          WEXITSTATUS(status) != 0) {
        ++bad_children;
      }
      ++forks;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  g_stop = true;
  for (auto& t : slots) t.join();
  if (strobe_stop() != 0) {
    std::fprintf(stderr, "%s\n", strobe_last_error());
    return 1;
  }
  std::printf(
      "engine %s: %llu samples kept, %llu dropped, %llu spans dropped, %d forks, %d bad "
      "children\n",
      strobe_engine_name(), static_cast<unsigned long long>(strobe_sample_count()),
      static_cast<unsigned long long>(strobe_dropped_samples()),
      static_cast<unsigned long long>(strobe_dropped_spans()), forks, bad_children);
  if (strobe_report(stdout) != 0) return 1;
  return strobe_sample_count() > 0 && bad_children == 0 ? 0 : 1;
}
