// A small program for the CI example (check_regression.sh): it tokenizes,
// parses and checksums generated input for about a second of CPU on two
// threads. Built twice by CMake: examples/ci/v1/parser, and
// examples/ci/v2/parser with -DPARSER_REGRESSION, where parse() does a
// third more work, as a change that slowed one function would.
#include <cstdint>
#include <cstdio>
#include <thread>

namespace {

volatile uint64_t g_sink;

// `n` rounds of arithmetic the compiler cannot fold away, in the function
// that writes it (a call would take the time for itself). noipa: tokenize
// and parse are the same code in v1, which -O2 would fold into one.
#define WORK(n, x)                                             \
  for (uint64_t i = 0; i < (n); ++i) {                         \
    (x) = (x)*6364136223846793005ULL + 1442695040888963407ULL; \
    (x) ^= (x) >> 29;                                          \
  }

__attribute__((noipa)) uint64_t tokenize(uint64_t x) {
  WORK(300'000, x);
  return x;
}

__attribute__((noipa)) uint64_t parse(uint64_t x) {
#ifdef PARSER_REGRESSION
  WORK(400'000, x);
#else
  WORK(300'000, x);
#endif
  return x;
}

__attribute__((noipa)) uint64_t checksum(uint64_t x) {
  WORK(200'000, x);
  return x;
}

void run(uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 400; ++i) x = checksum(parse(tokenize(x)));
  g_sink = x;
}

}  // namespace

int main() {
  std::thread a(run, 1);
  std::thread b(run, 2);
  a.join();
  b.join();
  std::printf("parser: done\n");
  return 0;
}
