// Internal to src/perf: reading the small /proc/sys and /sys files that
// explain perf_event limits (perf_event_paranoid, perf_event_mlock_kb, ...).
// Owns: nothing (the Fd it opens is closed before returning).
// Thread safety: thread-safe. Not async-signal-safe (allocates).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>
#include <string_view>

#include "base/fd.hpp"
#include "base/result.hpp"

namespace strobe::perf {

// The whole file (at most 64 KiB; these files are a line long).
inline Result<std::string> readProcFile(const char* path) {
  Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return systemError(std::string("cannot open ") + path);
  std::string out;
  char buf[256];
  while (out.size() < 65536) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError(std::string("cannot read ") + path);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// A decimal number, ignoring surrounding blanks and a trailing newline.
template <typename T>
bool parseNumber(std::string_view s, T& out) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace strobe::perf
