#include "inproc/preload_env.hpp"

#include <signal.h>
#include <string.h>

#include <cstdlib>

namespace strobe::inproc {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

Result<uint32_t> parseNumber(const std::string& name, const std::string& v, uint32_t lo,
                             uint32_t hi) {
  char* end = nullptr;
  unsigned long n = std::strtoul(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) {
    return makeError(name + "='" + v + "' is not a number from " + std::to_string(lo) + " to " +
                         std::to_string(hi),
                     "fix or unset " + name, ErrorKind::kUsage);
  }
  return static_cast<uint32_t>(n);
}

}  // namespace

Result<int> parseSignal(std::string_view name) {
  std::string s(name);
  if (s.rfind("SIG", 0) == 0) s = s.substr(3);
  auto number = [](const std::string& digits) {
    if (digits.empty() || digits.size() > 3 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return -1;
    }
    return std::atoi(digits.c_str());
  };
  if (int n = number(s); n > 0 && n < NSIG) return n;
  // Real-time signals have no fixed number: RTMIN, RTMIN+N, RTMAX, RTMAX-N.
  struct Rt {
    std::string_view prefix;
    int base;
    char sign;
  };
  for (const Rt& rt : {Rt{"RTMIN", SIGRTMIN, '+'}, Rt{"RTMAX", SIGRTMAX, '-'}}) {
    if (s.rfind(rt.prefix, 0) != 0) continue;
    std::string rest = s.substr(rt.prefix.size());
    int offset = rest.empty() ? 0 : rest[0] == rt.sign ? number(rest.substr(1)) : -1;
    int n = rt.sign == '+' ? rt.base + offset : rt.base - offset;
    if (offset >= 0 && n >= SIGRTMIN && n <= SIGRTMAX) return n;
  }
  for (int i = 1; i < NSIG; ++i) {
    const char* abbrev = ::sigabbrev_np(i);
    if (abbrev != nullptr && s == abbrev) return i;
  }
  return makeError("STROBE_SIGNAL='" + std::string(name) + "' is not a signal",
                   "use a signal name such as SIGUSR2", ErrorKind::kUsage);
}

Status checkToggleSignal(const std::string& text, int sig) {
  if (sig == SIGUSR1 || sig == SIGUSR2 || (sig >= SIGRTMIN && sig <= SIGRTMAX)) return {};
  // Faults (SEGV, BUS, FPE, ILL), termination requests (TERM, INT, ...),
  // SIGPROF (the timer engine's) and the rest have meanings a toggle would
  // take away: a crashing program would loop, `kill` would stop working.
  return makeError("STROBE_SIGNAL=" + text + " is not a signal profiling may take over",
                   "use SIGUSR1, SIGUSR2 or SIGRTMIN+N (one the program does not use)",
                   ErrorKind::kUsage);
}

std::string numberedPath(const std::string& path, unsigned n) {
  size_t slash = path.rfind('/');
  size_t base = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', base + 1);  // a leading dot is part of the name
  std::string num = "." + std::to_string(n);
  if (dot == std::string::npos) return path + num;
  return path.substr(0, dot) + num + path.substr(dot);
}

std::string expandPid(const std::string& path, pid_t pid) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

Result<PreloadConfig> readPreloadConfig() {
  PreloadConfig c;
  c.output = env("STROBE_OUTPUT");
  c.format = env("STROBE_FORMAT");
  c.http = env("STROBE_HTTP");
  if (std::string s = env("STROBE_SIGNAL"); !s.empty()) {
    auto sig = parseSignal(s);
    if (!sig.ok()) return sig.takeError();
    if (Status st = checkToggleSignal(s, *sig); !st.ok()) return st.takeError();
    c.signal = *sig;
    if (c.output.empty()) c.output = "strobe-profile.txt";
  }
  if (std::string f = env("STROBE_FREQ"); !f.empty()) {
    auto n = parseNumber("STROBE_FREQ", f, 1, 100000);
    if (!n.ok()) return n.takeError();
    c.options.frequency = *n;
  }
  if (std::string d = env("STROBE_DEPTH"); !d.empty()) {
    auto n = parseNumber("STROBE_DEPTH", d, 1, 256);
    if (!n.ok()) return n.takeError();
    c.options.max_depth = *n;
  }
  if (std::string m = env("STROBE_MODE"); !m.empty()) {
    if (m == "cpu") {
      c.options.mode = Mode::kCpu;
    } else if (m == "wall") {
      c.options.mode = Mode::kWall;
    } else {
      return makeError("STROBE_MODE='" + m + "' is not a mode", "use cpu or wall",
                       ErrorKind::kUsage);
    }
  }
  if (std::string e = env("STROBE_ENGINE"); !e.empty()) {
    if (e == "auto") {
      c.options.engine = EngineKind::kAuto;
    } else if (e == "perf") {
      c.options.engine = EngineKind::kPerf;
    } else if (e == "timer") {
      c.options.engine = EngineKind::kTimer;
    } else {
      return makeError("STROBE_ENGINE='" + e + "' is not an engine", "use auto, perf or timer",
                       ErrorKind::kUsage);
    }
  }
  return c;
}

}  // namespace strobe::inproc
