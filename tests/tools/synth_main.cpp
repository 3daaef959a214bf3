// strobe-synth OUT.db [SAMPLES] [--wide]: writes a synthetic recording (see
// synth_profile.hpp) for output tests and benchmarks.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "store/store.hpp"
#include "synth_profile.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: strobe-synth OUT.db [SAMPLES] [--wide]\n");
    return 2;
  }
  size_t samples = 10'000;
  bool wide = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--wide") {
      wide = true;
    } else {
      samples = std::strtoull(a.c_str(), nullptr, 10);
    }
  }
  auto st = strobe::store::writeProfile(strobe::test::synthProfile(samples, wide), argv[1]);
  if (!st) {
    std::fprintf(stderr, "strobe-synth: %s\n", st.error().describe().c_str());
    return 1;
  }
  return 0;
}
