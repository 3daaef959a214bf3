// The off-CPU benchmark's workload: two threads hand a byte back and forth
// through two pipes, ROUNDS times (default 250,000), so that each thread
// blocks in read() once per round: about 100,000 context switches a second
// and more. Prints, on stderr, what it measured itself:
//   pingpong_elapsed_ns=N pingpong_cpu_ns=N switches=N rounds=N
// (switches: voluntary + involuntary context switches of the process, from
// getrusage). Usage: pingpong [ROUNDS].
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

int g_ping[2], g_pong[2];
long g_rounds = 250'000;

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

__attribute__((noinline)) void* ponger(void*) {
  char c;
  for (long i = 0; i < g_rounds; ++i) {
    if (read(g_ping[0], &c, 1) != 1 || write(g_pong[1], &c, 1) != 1) std::abort();
  }
  return nullptr;
}

__attribute__((noinline)) void pinger() {
  char c = 1;
  for (long i = 0; i < g_rounds; ++i) {
    if (write(g_ping[1], &c, 1) != 1 || read(g_pong[0], &c, 1) != 1) std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_rounds = std::atol(argv[1]);
  if (pipe(g_ping) != 0 || pipe(g_pong) != 0) return 1;
  const uint64_t t0 = nowNs();
  pthread_t t;
  pthread_create(&t, nullptr, ponger, nullptr);
  pinger();
  pthread_join(t, nullptr);
  const uint64_t elapsed = nowNs() - t0;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
           static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
  };
  std::fprintf(stderr, "pingpong_elapsed_ns=%llu pingpong_cpu_ns=%llu switches=%ld rounds=%ld\n",
               static_cast<unsigned long long>(elapsed),
               static_cast<unsigned long long>(ns(ru.ru_utime) + ns(ru.ru_stime)),
               ru.ru_nvcsw + ru.ru_nivcsw, g_rounds);
  return 0;
}
