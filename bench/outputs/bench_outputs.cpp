// bench_outputs [SAMPLES] [OUT_DIR]: converts a synthetic recording of
// SAMPLES samples (default 1,000,000; tests/tools/synth_profile.hpp, wide)
// to every format and prints, per format, the writer's wall time, the
// process's peak RSS and the output size. Each format runs in its own
// child process so peak RSS is per format; "(profile only)" is the baseline
// of a child that only builds the profile.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <string>

#include "output/format.hpp"
#include "synth_profile.hpp"

using namespace strobe;

namespace {

struct Measure {
  double seconds = 0;
  double cpu_seconds = 0;
  long max_rss_kb = 0;
};

int runChild(size_t samples, int format, const std::string& path, int pipe_fd) {
  model::Profile p = test::synthProfile(samples, true);
  double seconds[2] = {0, 0};  // wall, CPU
  if (format >= 0) {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (out == nullptr) return 1;
    timespec c0{}, c1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    auto t0 = std::chrono::steady_clock::now();
    Status st = output::writeFormat(p, static_cast<output::Format>(format), {}, out);
    std::fclose(out);
    seconds[0] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    seconds[1] = static_cast<double>(c1.tv_sec - c0.tv_sec) +
                 static_cast<double>(c1.tv_nsec - c0.tv_nsec) / 1e9;
    if (!st) return 1;
  }
  if (write(pipe_fd, seconds, sizeof seconds) != sizeof seconds) return 1;
  return 0;
}

bool measure(size_t samples, int format, const std::string& path, Measure& r) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    _exit(runChild(samples, format, path, fds[1]));
  }
  close(fds[1]);
  double seconds[2] = {-1, -1};
  bool got = read(fds[0], seconds, sizeof seconds) == sizeof seconds;
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  r.seconds = seconds[0];
  r.cpu_seconds = seconds[1];
  r.max_rss_kb = ru.ru_maxrss;
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  std::string dir = argc > 2 ? argv[2] : "/tmp";
  // In the order of output::Format.
  const char* names[] = {"text",   "folded", "flamegraph", "pprof", "speedscope",
                         "chrome", "json",   "csv",        "html"};
  std::printf("%zu samples (synthetic, wide)\n", samples);
  std::printf("%-16s %10s %10s %12s %12s\n", "format", "wall (s)", "CPU (s)", "peak RSS MB",
              "output MB");
  Measure base;
  if (!measure(samples, -1, "", base)) return 1;
  std::printf("%-16s %10s %10s %12.0f %12s\n", "(profile only)", "-", "-", base.max_rss_kb / 1024.0,
              "-");
  int failures = 0;
  for (int f = 0; f < static_cast<int>(std::size(names)); ++f) {
    std::string path = dir + "/bench_outputs." + names[f];
    Measure r;
    if (!measure(samples, f, path, r)) {
      std::printf("%-16s failed\n", names[f]);
      ++failures;
      continue;
    }
    struct stat st {};
    stat(path.c_str(), &st);
    std::printf("%-16s %10.2f %10.2f %12.0f %12.1f\n", names[f], r.seconds, r.cpu_seconds,
                r.max_rss_kb / 1024.0, static_cast<double>(st.st_size) / 1e6);
    std::fflush(stdout);
    unlink(path.c_str());
  }
  return failures == 0 ? 0 : 1;
}
