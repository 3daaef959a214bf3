// Test helper: run a program with arguments, capture its stdout and stderr,
// return its shell-style exit status. Also starts one in the background.
#pragma once

#include <string>
#include <vector>

namespace strobe::test {

struct Ran {
  int status = -1;  // shell-style: 128+N for signal N
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) and waits.
Ran runProcess(const std::vector<std::string>& argv);

// Starts argv in the background with stdout/stderr to files in `dir`;
// returns the pid. waitProcess() collects it like runProcess().
int startProcess(const std::vector<std::string>& argv, const std::string& dir);
Ran waitProcess(int pid, const std::string& dir);

// A fresh temporary directory, removed by the caller with removeTree().
std::string makeTempDir();
void removeTree(const std::string& dir);
std::string readFile(const std::string& path);

// The 1-based line of the first line in `path` that contains `needle`, or 0.
int lineOf(const std::string& path, const std::string& needle);

}  // namespace strobe::test
