// Fixed CPU work on 2 threads, with a call depth typical of real programs;
// prints the process's own CPU time (user+sys, ns) on stderr at exit so the
// benchmark sees what a profiler added to the target.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "overhead/work.hpp"

int main(int argc, char** argv) {
  uint64_t rounds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 60000;
  std::thread a(strobe::bench::work, rounds), b(strobe::bench::work, rounds);
  a.join();
  b.join();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) { return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL; };
  std::fprintf(stderr, "workload_cpu_ns=%lld\n", ns(ru.ru_utime) + ns(ru.ru_stime));
  return 0;
}
