// strobe-synth OUT.db [SAMPLES] [--wide] [--uneven] [--off-cpu] [--start=UNIX_SECONDS] [--spans]
//   [--seed=N] [--changed] [--phases [--source=PATH] [--idle-threads=N]]:
// writes a synthetic recording (see synth_profile.hpp) for output tests and benchmarks; --spans
// adds spans and roles; --seed draws other wide samples from the same call paths (another run of
// one program); --changed writes synthChangedProfile (a later run with some functions slower,
// some faster, one gone); --phases writes the viewer's 6:3:1 profile instead, its
// functions in PATH (default /src/phases/work.cpp), with N idle threads.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "store/store.hpp"
#include "synth_profile.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: strobe-synth OUT.db [SAMPLES] [--wide] [--uneven] [--off-cpu] "
                 "[--start=SECONDS] [--spans] [--seed=N] [--changed] [--phases [--source=PATH] "
                 "[--idle-threads=N]]\n");
    return 2;
  }
  size_t samples = 10'000;
  bool wide = false;
  bool uneven = false;
  bool spans = false;
  bool off_cpu = false;
  bool phases = false;
  std::string source = "/src/phases/work.cpp";
  size_t idle_threads = 0;
  uint64_t start_s = 0;
  uint64_t seed = 0;
  bool changed = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--wide") {
      wide = true;
    } else if (a == "--uneven") {
      uneven = true;
    } else if (a == "--spans") {
      spans = true;
    } else if (a == "--off-cpu") {
      off_cpu = true;
    } else if (a == "--phases") {
      phases = true;
    } else if (a.rfind("--idle-threads=", 0) == 0) {
      idle_threads = std::strtoull(a.c_str() + 15, nullptr, 10);
    } else if (a.rfind("--source=", 0) == 0) {
      source = a.substr(9);
    } else if (a == "--changed") {
      changed = true;
    } else if (a.rfind("--seed=", 0) == 0) {
      seed = std::strtoull(a.c_str() + 7, nullptr, 10);
    } else if (a.rfind("--start=", 0) == 0) {
      start_s = std::strtoull(a.c_str() + 8, nullptr, 10);
    } else {
      samples = std::strtoull(a.c_str(), nullptr, 10);
    }
  }
  strobe::model::Profile p = phases
                                 ? strobe::test::synthPhasesProfile(samples, source, idle_threads)
                             : off_cpu ? strobe::test::synthOffCpuProfile(samples)
                             : changed ? strobe::test::synthChangedProfile(samples)
                                       : strobe::test::synthProfile(samples, wide, uneven, seed);
  if (start_s != 0) p.meta().start_realtime_ns = start_s * 1'000'000'000ULL;
  if (spans) strobe::test::addSynthSpans(p);
  auto st = strobe::store::writeProfile(p, argv[1]);
  if (!st) {
    std::fprintf(stderr, "strobe-synth: %s\n", st.error().describe().c_str());
    return 1;
  }
  return 0;
}
