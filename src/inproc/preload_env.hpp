// The STROBE_* environment of preload mode, parsed (see preload.cpp for the
// variables). Pure parsing helpers so tests can check them without a
// process. Thread safety: pure (readPreloadConfig reads the environment).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/result.hpp"
#include "inproc/engine.hpp"

namespace strobe::inproc {

struct PreloadConfig {
  Options options;
  std::string output;  // STROBE_OUTPUT
  std::string format;  // STROBE_FORMAT ("" = from the extension)
  std::string http;    // STROBE_HTTP
  int signal = 0;      // STROBE_SIGNAL, 0 when unset
  [[nodiscard]] bool active() const { return !output.empty() || signal != 0 || !http.empty(); }
};

Result<PreloadConfig> readPreloadConfig();

// "SIGUSR2", "USR2" or "12" -> 12; "SIGRTMIN+2", "RTMAX-1" for real-time
// signals. Errors are kUsage.
Result<int> parseSignal(std::string_view name);
// Whether STROBE_SIGNAL may be `sig` (written `text`): only signals meant
// for programs to use, SIGUSR1, SIGUSR2 and the real-time ones. Errors are
// kUsage.
Status checkToggleSignal(const std::string& text, int sig);
// "app.pb.gz", 2 -> "app.2.pb.gz"; "out", 2 -> "out.2"; "dir.d/app" -> "dir.d/app.2".
std::string numberedPath(const std::string& path, unsigned n);
// "%p" -> pid.
std::string expandPid(const std::string& path, pid_t pid);

}  // namespace strobe::inproc
