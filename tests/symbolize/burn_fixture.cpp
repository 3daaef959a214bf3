// Fixture for the symbolizer's end-to-end tests: burns CPU in three places
// for about 0.4 s each: a static function (named only by .symtab / DWARF),
// an exported one (also in .dynsym: linked with -rdynamic), and JIT code in
// anonymous executable memory that it names in /tmp/perf-PID.map (x86-64;
// elsewhere the JIT part is skipped).
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

bool burnedFor(std::chrono::steady_clock::time_point start, double seconds) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds;
}

__attribute__((noinline)) uint64_t staticBurn(double seconds) {
  volatile uint64_t acc = 0;
  auto start = std::chrono::steady_clock::now();
  while (!burnedFor(start, seconds)) {
    for (int i = 0; i < 100000; ++i) acc = acc + static_cast<uint64_t>(i) * 7;
  }
  return acc;
}

}  // namespace

extern "C" __attribute__((noinline, visibility("default"))) uint64_t exportedBurn(double seconds) {
  volatile uint64_t acc = 0;
  auto start = std::chrono::steady_clock::now();
  while (!burnedFor(start, seconds)) {
    for (int i = 0; i < 100000; ++i) acc = acc + static_cast<uint64_t>(i) * 5;
  }
  return acc;
}

namespace {

void jitBurn(double seconds) {
#if defined(__x86_64__)
  // dec %rdi; jnz -5; ret  -- spins rdi times.
  static const unsigned char kCode[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
  void* mem =
      ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  std::memcpy(mem, kCode, sizeof kCode);
  char path[64];
  std::snprintf(path, sizeof path, "/tmp/perf-%d.map", static_cast<int>(::getpid()));
  if (FILE* f = std::fopen(path, "w")) {
    std::fprintf(f, "%llx %zx jit_spin_loop [JIT] tier1\n",
                 static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(mem)), sizeof kCode);
    std::fclose(f);
  }
  auto spin = reinterpret_cast<void (*)(uint64_t)>(mem);
  auto start = std::chrono::steady_clock::now();
  while (!burnedFor(start, seconds)) spin(20000000);
#else
  (void)seconds;
#endif
}

}  // namespace

int main() {
  uint64_t r = staticBurn(0.4) + exportedBurn(0.4);
  jitBurn(0.4);
  return static_cast<int>(r & 1);
}
