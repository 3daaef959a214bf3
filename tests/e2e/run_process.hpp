// Test helper: run a program with arguments, capture its stdout and stderr,
// return its shell-style exit status. Also starts one in the background.
#pragma once

#include <signal.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strobe::test {

// The build's strobe and its fixture programs (folder, with the trailing /).
inline const std::string kStrobe = STROBE_BINARY_DIR "/strobe";
inline const std::string kFixtures = STROBE_BINARY_DIR "/tests/fixtures/";

struct Ran {
  int status = -1;  // shell-style: 128+N for signal N
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) and waits.
Ran runProcess(const std::vector<std::string>& argv);

// What runOnce() ran: its result and the folder it ran in.
struct SharedRun {
  Ran ran;
  std::string dir;
};

// Runs argv once for all the test cases that share its result (a suite's
// recording, say), with "{dir}" in an argument replaced by a folder of the
// build: ctest runs each case in a process of its own, so a suite's
// SetUpTestSuite would otherwise make it again for every case. The first
// case to ask runs it, under a lock; later ones read its status, stdout
// and stderr back, and must not change what is in the folder. The folder
// is named by `name`, argv, the modification times of the files argv
// names and the STROBE_* environment (STROBE_CAPTURE_ENGINE=bpf runs the
// suites again under the BPF engine), so a rebuilt strobe or program, or
// another engine, makes it anew.
SharedRun runOnce(const std::string& name, const std::vector<std::string>& argv);

// argv under `nice -n adjustment`: a recorder at -10 drains its rings
// beside a fixture whose busy threads fill the machine's cores, without
// starving the fixture as a fixture at nice 19 would be beside another
// test's busy threads. Raising a priority needs root (the BPF and
// perf-event tests have it); without it nice says so and runs argv as is.
std::vector<std::string> atNice(int adjustment, std::vector<std::string> argv);

// Starts argv in the background with stdout/stderr to files in `dir`;
// returns the pid. waitProcess() collects it like runProcess().
int startProcess(const std::vector<std::string>& argv, const std::string& dir);
Ran waitProcess(int pid, const std::string& dir);

// A fresh temporary directory, removed by the caller with removeTree().
std::string makeTempDir();
void removeTree(const std::string& dir);
std::string readFile(const std::string& path);
// The number after `key=` in a program's output (words split by blanks);
// a test failure and 0 when there is none.
uint64_t outputNumber(const std::string& out, const std::string& key);

// The 1-based line of the first line in `path` that contains `needle`, or 0.
int lineOf(const std::string& path, const std::string& needle);

// The lines of a program's output.
std::vector<std::string> lines(const std::string& text);

void sleepMs(int ms);

// Waits up to `seconds` for `path` to exist.
bool waitForFile(const std::string& path, int seconds = 60);
// How many threads process `pid` runs now (0 once it is gone).
int threadCount(int pid);
// Waits up to `seconds` for process `pid` to have made its span channel
// (libstrobe's memfd, made when a thread first names its role or opens a
// span) and to run `threads` threads: a fixed sleep before attaching is
// too short on a loaded machine, where a sanitized program starts slowly.
bool waitForSpanChannel(int pid, int threads, int seconds = 30);
// Creates (or empties) `path`.
void touch(const std::string& path);

// A background process with its own output directory, killed (SIGKILL) and
// collected if still running when it goes out of scope.
class Background {
 public:
  explicit Background(const std::vector<std::string>& argv);
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  [[nodiscard]] int pid() const { return pid_; }
  [[nodiscard]] const std::string& dir() const { return dir_; }
  // Sends `sig` and collects the process.
  Ran stop(int sig = SIGTERM);
  // Collects the process once it exits.
  Ran wait();

 private:
  std::string dir_;
  int pid_;
};

}  // namespace strobe::test
