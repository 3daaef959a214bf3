// Launching a command under a profiler: fork, hold the child until strobe's
// events exist, then exec. The child waits on a pipe; a second, close-on-exec
// pipe reports an exec failure (its errno) back to the parent, so "command
// not found" is told apart from a command that ran and failed. The child
// asks for SIGTERM when strobe dies (PR_SET_PDEATHSIG), so a killed strobe
// never leaves its command running unobserved.
// Thread safety: call from one thread; the child does only async-signal-safe
// work between fork and exec.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "base/fd.hpp"
#include "base/result.hpp"

namespace strobe::record {

class HeldChild {
 public:
  // Forks; the child waits for release() before exec'ing argv, with
  // `extra_env` ("NAME=VALUE" each) added to strobe's environment.
  static Result<HeldChild> spawn(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& extra_env = {});

  // A moved-from HeldChild owns no child (its destructor does nothing).
  HeldChild(HeldChild&& o) noexcept
      : pid_(std::exchange(o.pid_, -1)),
        go_(std::move(o.go_)),
        exec_err_(std::move(o.exec_err_)),
        name_(std::move(o.name_)),
        released_(o.released_) {}
  HeldChild& operator=(HeldChild&&) = delete;
  ~HeldChild();  // kills and reaps a child that was never released

  [[nodiscard]] pid_t pid() const { return pid_; }
  // Lets the child exec and waits until it has (or failed: kNotFound when
  // there is no such file, exit 127; kCannotExecute otherwise, exit 126,
  // including a script whose #! interpreter is missing).
  Status release();
  // After release(): the child is ours to wait for; the destructor no longer kills it.
  void abandon() { pid_ = -1; }

 private:
  HeldChild(pid_t pid, Fd go, Fd exec_err, std::string name)
      : pid_(pid), go_(std::move(go)), exec_err_(std::move(exec_err)), name_(std::move(name)) {}
  pid_t pid_ = -1;
  Fd go_;        // write end: one byte releases the child
  Fd exec_err_;  // read end: errno of a failed exec, or EOF on success
  std::string name_;
  bool released_ = false;
};

}  // namespace strobe::record
