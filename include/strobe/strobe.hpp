// strobe::Session: a RAII wrapper over the C API in strobe.h.
//
// A Session starts profiling in its constructor and stops in its destructor
// (or at stop()). report() and write() stop it first if it still runs, then
// use its profile. Only one Session (or C session) runs at a time in a
// process; constructing a second one throws strobe::Error.
// Thread safety: a Session object is used by one thread at a time; the
// underlying library serializes calls. Errors are thrown as strobe::Error
// (a std::runtime_error with the library's message and hint).
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "strobe/strobe.h"

namespace strobe {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  uint32_t frequency = 99;
  strobe_mode mode = STROBE_MODE_CPU;
  uint32_t max_depth = 64;
  uint32_t buffer_samples = 0;  // timer engine: 0 sizes it from the rate
  strobe_engine engine = STROBE_ENGINE_AUTO;
};

class Session {
 public:
  explicit Session(const Options& o = Options()) {
    strobe_options c;
    strobe_options_init(&c);
    c.frequency = o.frequency;
    c.mode = o.mode;
    c.max_depth = o.max_depth;
    c.buffer_samples = o.buffer_samples;
    c.engine = o.engine;
    check(strobe_start(&c));
    running_ = true;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (running_) strobe_stop();
  }

  void stop() {
    if (!running_) return;
    running_ = false;
    check(strobe_stop());
  }
  // The text report of this session on `out`.
  void report(std::FILE* out = stdout) {
    stop();
    check(strobe_report(out));
  }
  // Writes the profile to `path`; format "" follows the extension.
  void write(const std::string& path, const std::string& format = "") {
    stop();
    check(strobe_write(path.c_str(), format.empty() ? nullptr : format.c_str()));
  }
  [[nodiscard]] std::string engine() const { return strobe_engine_name(); }
  // Why the perf engine was not used ("" when it was); see strobe.h.
  [[nodiscard]] std::string engineFallbackReason() const { return strobe_engine_fallback_reason(); }
  [[nodiscard]] uint64_t dropped() const { return strobe_dropped_samples(); }
  [[nodiscard]] uint64_t samples() const { return strobe_sample_count(); }

 private:
  static void check(int rc) {
    if (rc != 0) throw Error(strobe_last_error());
  }
  bool running_ = false;
};

}  // namespace strobe
