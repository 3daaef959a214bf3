// What naming one JIT-compiled function costs the JIT: libstrobe's
// strobe_jit_register + strobe_jit_unregister (in memory only, and with
// STROBE_JITDUMP set: a jitdump record with the code per registration),
// next to what runtimes do today for perf: a perf-map line (fprintf, with
// and without a flush per function, as V8's --perf-basic-prof and LuaJIT's
// perf support do) and their own jitdump record (the same bytes, buffered
// fwrite as V8's --perf-prof, or one write(2) each).
//
//   bench_jit_register MODE FUNCTIONS CODE_BYTES
//   MODE: api | api-lines | perfmap | perfmap-flush | jitdump-fwrite | jitdump-write
// Prints "MODE ns_per_function". STROBE_JITDUMP decides whether `api`
// writes a jitdump (run.sh runs it both ways). Files go to $BENCH_DIR.
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "strobe/strobe.h"
#include "symbolize/jitdump.hpp"

namespace {

uint64_t nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_jit_register MODE FUNCTIONS CODE_BYTES\n");
    return 2;
  }
  const std::string mode = argv[1];
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const size_t code = std::strtoull(argv[3], nullptr, 10);
  const char* dir_env = std::getenv("BENCH_DIR");
  const std::string dir = dir_env != nullptr ? dir_env : "/tmp";
  // The functions: `code` bytes each (ret-filled), in one executable region.
  const size_t bytes = n * code;
  auto* mem = static_cast<unsigned char*>(
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (mem == MAP_FAILED) return 1;
  std::memset(mem, 0xc3, bytes);
  mprotect(mem, bytes, PROT_READ | PROT_EXEC);
  std::vector<std::string> names(n);
  for (size_t i = 0; i < n; ++i) names[i] = "JS:*function_" + std::to_string(i) + " /app/x.js:1";

  const std::string path = dir + "/bench-" + std::to_string(getpid());
  FILE* f = nullptr;
  int fd = -1;
  std::string rec;
  if (mode == "perfmap" || mode == "perfmap-flush" || mode == "jitdump-fwrite") {
    f = std::fopen(path.c_str(), "w");
  } else if (mode == "jitdump-write") {
    fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  }
  const uint64_t t0 = nowNs();
  for (size_t i = 0; i < n; ++i) {
    unsigned char* start = mem + i * code;
    if (mode == "api") {
      strobe_jit_register(names[i].c_str(), start, code);
    } else if (mode == "api-lines") {
      strobe_jit_register(names[i].c_str(), start, code);
      const strobe_jit_line lines[] = {{start, "x.js", 1}, {start + code / 2, "x.js", 2}};
      strobe_jit_register_lines(start, lines, 2);
    } else if (mode == "perfmap" || mode == "perfmap-flush") {
      std::fprintf(f, "%lx %zx %s\n", reinterpret_cast<unsigned long>(start), code,
                   names[i].c_str());
      if (mode == "perfmap-flush") std::fflush(f);
    } else {
      rec.clear();
      strobe::symbolize::appendJitdumpLoad(rec, nowNs(), getpid(), getpid(),
                                           reinterpret_cast<uint64_t>(start), {start, code}, i,
                                           names[i]);
      if (f != nullptr) {
        std::fwrite(rec.data(), 1, rec.size(), f);
      } else if (::write(fd, rec.data(), rec.size()) < 0) {
        return 1;
      }
    }
  }
  // Freed code is unregistered (for the API; the other conventions have no such step).
  if (mode == "api" || mode == "api-lines") {
    for (size_t i = 0; i < n; ++i) strobe_jit_unregister(mem + i * code);
  }
  const uint64_t t1 = nowNs();
  if (f != nullptr) std::fclose(f);
  if (fd >= 0) ::close(fd);
  ::unlink(path.c_str());
  std::printf("%s %.1f\n", mode.c_str(), static_cast<double>(t1 - t0) / static_cast<double>(n));
  return 0;
}
