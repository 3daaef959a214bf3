// What the BPF engine's end-to-end tests share: whether this machine lets
// strobe load its BPF program (the reason it gives when not, for
// GTEST_SKIP), and an environment variable set for a scope.
// Test-only.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "run_process.hpp"

namespace strobe::test {

// "" when `strobe record --engine bpf` can record here; otherwise strobe's
// own first line saying why (no BTF, no capabilities, ...). Asked once.
inline const std::string& bpfRefusal() {
  static const std::string reason = [] {
    const std::string dir = makeTempDir();
    Ran r = runProcess(
        {kStrobe, "record", "--engine", "bpf", "-o", dir + "/probe.db", "--", "/bin/true"});
    removeTree(dir);
    if (r.status == 0) return std::string();
    std::string line = r.err.substr(0, r.err.find('\n'));
    return line.empty() ? "strobe record --engine bpf exited with " + std::to_string(r.status)
                        : line;
  }();
  return reason;
}

#define SKIP_WITHOUT_BPF()                                                                      \
  do {                                                                                          \
    if (!bpfRefusal().empty()) GTEST_SKIP() << "the kernel refuses BPF here: " << bpfRefusal(); \
  } while (0)

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

}  // namespace strobe::test
