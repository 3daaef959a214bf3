// Spans and thread roles: a small "service" whose workers mark each request
// as a span and name their role, then a native recording of the run that
// `strobe report` reads:
//
//   ./spans_example app.db
//   strobe report app.db --spans                       # one row per span name
//   strobe report app.db --span request --slowest 5    # what the slowest ones ran
//   strobe report app.db --by thread                   # "worker 0 (tid ...)", ...
//
// Without an argument the program profiles nothing itself, so it can run
// under `strobe record -- ./spans_example` (or be attached with -p), which
// records the same spans and roles. Build with -DSTROBE_DISABLE and the
// STROBE_* macros compile to nothing (then without libstrobe).
#include <strobe/strobe.hpp>

#include <cstdio>
#include <thread>
#include <vector>

namespace {

volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long n) {
  unsigned long x = sink | 1;
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  sink = x;
}

void worker(int index) {
  STROBE_THREAD_ROLE("worker", index);
  for (int request = 0; request < 200; ++request) {
    STROBE_SPAN("request");                          // ends at the end of this iteration
    work(request % 50 == 7 ? 20'000'000 : 500'000);  // a few slow ones
  }
}

void serve() {
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) workers.emplace_back(worker, i);
  for (auto& t : workers) t.join();
}

}  // namespace

int main(int argc, char** argv) {
#ifndef STROBE_DISABLE
  if (argc > 1) {
    try {
      strobe::Options opt;
      opt.frequency = 999;
      strobe::Session session(opt);
      serve();
      session.write(argv[1]);  // .db: the native recording
      std::printf("wrote %s (%llu samples, %llu spans dropped)\n", argv[1],
                  static_cast<unsigned long long>(session.samples()),
                  static_cast<unsigned long long>(session.droppedSpans()));
    } catch (const strobe::Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    return 0;
  }
#endif
  (void)argc;
  (void)argv;
  serve();
  return 0;
}
