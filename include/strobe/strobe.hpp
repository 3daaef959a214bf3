// strobe::Session: a RAII wrapper over the C API in strobe.h; strobe::Span,
// a span that ends at scope exit.
//
// A Session starts profiling in its constructor and stops in its destructor
// (or at stop()). report() and write() stop it first if it still runs, then
// use its profile; snapshot() writes what was sampled so far and keeps it
// running. Only one Session (or C session) runs at a time in a process;
// constructing a second one throws strobe::Error. A Session can be moved
// (a factory may return one); the moved-from one owns nothing.
// Thread safety: a Session object is used by one thread at a time; the
// underlying library serializes calls. Errors are thrown as strobe::Error
// (a std::runtime_error with the library's message and hint).
//
// Spans: `strobe::Span span("request");` or STROBE_SPAN("request") marks the
// enclosing scope on the calling thread; STROBE_THREAD_ROLE("worker", i)
// names the thread's job. With STROBE_DISABLE defined before this header,
// they compile to nothing and reference no libstrobe symbol (Session is
// unaffected: a program that uses it links libstrobe).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "strobe/strobe.h"

namespace strobe {

#ifdef STROBE_DISABLE
class Span {
 public:
  explicit Span(const char*) {}
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
};
#else
// A span from construction to destruction. `name` must outlive the process.
class Span {
 public:
  explicit Span(const char* name) { strobe_span_begin(name); }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span() { strobe_span_end(); }
};
#endif

#define STROBE_DETAIL_CAT2(a, b) a##b
#define STROBE_DETAIL_CAT(a, b) STROBE_DETAIL_CAT2(a, b)
// A span over the rest of the enclosing scope.
#define STROBE_SPAN(name) ::strobe::Span STROBE_DETAIL_CAT(strobe_span_, __LINE__)(name)

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  uint32_t frequency = 99;
  strobe_mode mode = STROBE_MODE_CPU;
  uint32_t max_depth = 64;
  uint32_t buffer_samples = 1024;
  strobe_engine engine = STROBE_ENGINE_AUTO;
  std::string event = "cpu-clock";  // as `strobe record -e`
  bool kernel = false;              // kernel frames too (perf engine)
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
    c.event = o.event.c_str();
    c.kernel = o.kernel ? 1 : 0;
    check(strobe_start(&c));
    running_ = true;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&& o) noexcept : running_(std::exchange(o.running_, false)) {}
  Session& operator=(Session&& o) noexcept {
    if (this != &o) {
      if (running_) strobe_stop();
      running_ = std::exchange(o.running_, false);
    }
    return *this;
  }
  ~Session() {
    if (running_) strobe_stop();
  }

  void stop() {
    if (!running_) return;
    running_ = false;
    check(strobe_stop());
  }
  [[nodiscard]] bool running() const { return running_; }
  // The text report of this session on `out`.
  void report(std::FILE* out = stdout) {
    stop();
    check(strobe_report(out));
  }
  // Writes the profile to `path`; format "" follows the extension ("x.db":
  // the native recording).
  void write(const std::string& path, const std::string& format = "") {
    stop();
    check(strobe_write(path.c_str(), format.empty() ? nullptr : format.c_str()));
  }
  // Writes what was sampled so far; the session keeps running.
  void snapshot(const std::string& path, const std::string& format = "") {
    check(strobe_snapshot(path.c_str(), format.empty() ? nullptr : format.c_str()));
  }
  // The profile in `format` as bytes (stops the session first).
  std::string bytes(const std::string& format = "text") {
    stop();
    void* data = nullptr;
    size_t size = 0;
    check(strobe_write_mem(format.c_str(), &data, &size));
    std::string out(static_cast<const char*>(data), size);
    std::free(data);
    return out;
  }
  [[nodiscard]] std::string engine() const { return strobe_engine_name(); }
  [[nodiscard]] uint64_t dropped() const { return strobe_dropped_samples(); }
  [[nodiscard]] uint64_t droppedSpans() const { return strobe_dropped_spans(); }
  [[nodiscard]] uint64_t samples() const { return strobe_sample_count(); }

 private:
  static void check(int rc) {
    if (rc != 0) throw Error(strobe_last_error());
  }
  bool running_ = false;
};

}  // namespace strobe
