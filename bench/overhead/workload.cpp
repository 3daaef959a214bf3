// Fixed CPU work on 2 threads, with a call depth typical of real programs;
// prints the process's own CPU time (user+sys, ns) on stderr at exit so the
// benchmark sees what a profiler added to the target.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {
volatile uint64_t g_sink;

__attribute__((noinline)) uint64_t leaf(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
__attribute__((noinline)) uint64_t level(int depth, uint64_t x, uint64_t n) {
  if (depth == 0) return leaf(x, n);
  return level(depth - 1, x, n) ^ depth;
}
__attribute__((noinline)) void worker(uint64_t rounds) {
  uint64_t x = 1;
  for (uint64_t r = 0; r < rounds; ++r) x = level(12, x, 20000);
  g_sink = x;
}
}  // namespace

int main(int argc, char** argv) {
  uint64_t rounds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 60000;
  std::thread a(worker, rounds), b(worker, rounds);
  a.join();
  b.join();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) { return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL; };
  std::fprintf(stderr, "workload_cpu_ns=%lld\n", ns(ru.ru_utime) + ns(ru.ru_stime));
  return 0;
}
