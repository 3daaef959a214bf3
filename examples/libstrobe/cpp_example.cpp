// Profiles a scope of a C++ program with strobe::Session: sampling starts in
// the constructor and report() stops it and prints the text report. With an
// argument, the profile is also written there (format from the extension).
// Build against an installed libstrobe: find_package(strobe) and link
// strobe::strobe, or c++ cpp_example.cpp $(pkg-config --cflags --libs strobe)
#include <strobe/strobe.hpp>

#include <cstdio>
#include <thread>
#include <vector>

namespace {

volatile unsigned long sink;

__attribute__((noinline)) void parse(unsigned long n) {
  unsigned long x = sink | 1;
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  sink = x;
}

__attribute__((noinline)) void render(unsigned long n) {
  parse(n * 2);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    strobe::Options opt;
    opt.frequency = 999;
    strobe::Session session(opt);
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t) {
      workers.emplace_back([] {
        for (int i = 0; i < 100; ++i) render(1000000);
      });
    }
    for (auto& w : workers) w.join();
    session.report(stdout);
    std::printf("engine: %s, dropped: %llu\n", session.engine().c_str(),
                static_cast<unsigned long long>(session.dropped()));
    if (argc > 1) session.write(argv[1]);
  } catch (const strobe::Error& e) {
    std::fprintf(stderr, "strobe: %s\n", e.what());
    return 1;
  }
  return 0;
}
