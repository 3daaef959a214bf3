// bench_python_naming: what naming a Python frame costs strobe's recorder
// (record/python_frames.hpp), per unique code object: the first sample of
// a code object reads it from the process (header, qualified name, file,
// line table: process_vm_readv), later samples in the same drain pass are
// a table lookup, and the first use after each drain pass re-reads its
// header to check that the address still holds it.
// Usage: bench_python_naming PYTHON [N] (N code objects, default 2000).
// Prints CPU time per code object for each case, and reads per object.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "cpython/frames.hpp"
#include "model/profile.hpp"
#include "record/python_frames.hpp"

extern char** environ;

namespace {

uint64_t cpuNs() {
  return strobe::clockNs(CLOCK_THREAD_CPUTIME_ID);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_python_naming PYTHON [N]\n");
    return 2;
  }
  const std::string n = argc > 2 ? argv[2] : "2000";
  const std::string script = STROBE_SOURCE_DIR "/bench/python/code_objects.py";
  int out[2], in[2];
  if (::pipe(out) != 0 || ::pipe(in) != 0) return 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  // The child keeps no end of the pipes but its own: closing in[1] below
  // is its end of input.
  for (int fd : {out[0], out[1], in[0], in[1]}) posix_spawn_file_actions_addclose(&fa, fd);
  std::vector<char*> args = {argv[1], const_cast<char*>(script.c_str()),
                             const_cast<char*>(n.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[1], &fa, nullptr, args.data(), environ) != 0) return 1;
  ::close(out[1]);
  ::close(in[0]);
  std::string line;
  char buf[65536];
  for (ssize_t got;
       line.find('\n') == std::string::npos && (got = ::read(out[0], buf, sizeof buf)) > 0;) {
    line.append(buf, static_cast<size_t>(got));
  }
  std::vector<uint64_t> codes;
  std::istringstream ids(line);
  for (uint64_t id; ids >> id;) codes.push_back(id);

  strobe::record::PythonFrames frames;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string m; std::getline(maps, m);) {
    std::istringstream l(m);
    std::string range, perms, offset, dev, inode, path;
    l >> range >> perms >> offset >> dev >> inode >> path;
    if (path.empty()) continue;
    frames.onMapping(pid, std::stoull(range.substr(0, range.find('-')), nullptr, 16),
                     std::stoull(offset, nullptr, 16), path);
  }
  if (frames.interpreter(pid) == nullptr) {
    std::fprintf(stderr, "no CPython 3.11-3.13 interpreter found in %s\n", argv[1]);
    return 1;
  }
  strobe::model::Profile p;
  auto pass = [&] {
    const uint64_t t = cpuNs();
    for (uint64_t c : codes) (void)frames.locate(p, pid, strobe::cpython::RuntimeFrame{c, 0, 0});
    return static_cast<double>(cpuNs() - t) / static_cast<double>(codes.size());
  };
  const double first = pass();
  const double cached = pass();
  frames.nextEpoch();
  const double checked = pass();
  const auto s = frames.stats();
  std::printf("code objects: %zu (named %llu, unnamed %llu)\n", codes.size(),
              static_cast<unsigned long long>(s.code_objects),
              static_cast<unsigned long long>(s.unnamed));
  std::printf("first sample (read and name): %.2f us CPU per code object\n", first / 1000);
  std::printf("again in the same pass:       %.3f us\n", cached / 1000);
  std::printf("first use in a later pass:    %.2f us (the header read again)\n", checked / 1000);
  std::fflush(stdout);
  ::close(in[1]);
  ::waitpid(pid, nullptr, 0);
  return 0;
}
