// The C ABI of include/strobe/strobe.h over session.hpp and writer.hpp.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "inproc/http_server.hpp"
#include "inproc/jit_registry.hpp"
#include "inproc/session.hpp"
#include "inproc/writer.hpp"
#include "strobe/strobe.h"

namespace {

thread_local std::string t_error;
thread_local std::string t_engine;
thread_local std::string t_fallback;

int fail(const strobe::Error& e) {
  t_error = e.describe();
  if (!e.hint.empty()) t_error += "\n  hint: " + e.hint;
  return -1;
}

int check(strobe::Status s) {
  if (!s.ok()) return fail(s.error());
  t_error.clear();
  return 0;
}

}  // namespace

extern "C" {

void strobe_options_init(strobe_options* opt) {
  if (opt == nullptr) return;
  opt->frequency = 99;
  opt->mode = STROBE_MODE_CPU;
  opt->max_depth = 64;
  opt->buffer_samples = 0;
  opt->engine = STROBE_ENGINE_AUTO;
  opt->event = nullptr;
  opt->kernel = 0;
}

int strobe_start(const strobe_options* opt) {
  strobe_options c;
  strobe_options_init(&c);
  if (opt != nullptr) c = *opt;
  strobe::inproc::Options o;
  o.frequency = c.frequency;
  o.mode = c.mode == STROBE_MODE_WALL ? strobe::inproc::Mode::kWall : strobe::inproc::Mode::kCpu;
  o.max_depth = c.max_depth;
  o.buffer_samples = c.buffer_samples;
  if (c.event != nullptr) o.event = c.event;
  o.kernel = c.kernel != 0;
  switch (c.engine) {
    case STROBE_ENGINE_PERF:
      o.engine = strobe::inproc::EngineKind::kPerf;
      break;
    case STROBE_ENGINE_TIMER:
      o.engine = strobe::inproc::EngineKind::kTimer;
      break;
    default:
      o.engine = strobe::inproc::EngineKind::kAuto;
      break;
  }
  return check(strobe::inproc::startSession(o));
}

int strobe_stop(void) {
  if (strobe::Status s = strobe::inproc::stopSession(); !s.ok()) return fail(s.error());
  // Stopped, and the profile kept; but it ends early: say so.
  return check(strobe::inproc::samplingStoppedEarly());
}

int strobe_running(void) {
  return strobe::inproc::sessionRunning() ? 1 : 0;
}

int strobe_write(const char* path, const char* format) {
  if (path == nullptr || *path == '\0') {
    return fail(strobe::makeError("no output path given", "pass a file name to strobe_write",
                                  strobe::ErrorKind::kUsage));
  }
  std::string p = path;
  std::string f = format != nullptr ? format : "";
  return check(strobe::inproc::withLastProfile([&](const strobe::model::Profile& prof) {
    return strobe::inproc::writeProfileFile(prof, f, p);
  }));
}

int strobe_snapshot(const char* path, const char* format) {
  if (path == nullptr || *path == '\0') {
    return fail(strobe::makeError("no output path given", "pass a file name to strobe_snapshot",
                                  strobe::ErrorKind::kUsage));
  }
  std::string p = path;
  std::string f = format != nullptr ? format : "";
  return check(strobe::inproc::withSnapshot([&](const strobe::model::Profile& prof) {
    return strobe::inproc::writeProfileFile(prof, f, p);
  }));
}

int strobe_write_mem(const char* format, void** data, size_t* size) {
  if (data == nullptr || size == nullptr) {
    return fail(strobe::makeError("no place for the profile given",
                                  "pass the addresses of a void* and a size_t",
                                  strobe::ErrorKind::kUsage));
  }
  *data = nullptr;
  *size = 0;
  std::string f = format != nullptr ? format : "text";
  return check(strobe::inproc::withLastProfile([&](const strobe::model::Profile& prof) {
    auto bytes = strobe::inproc::profileBytes(prof, f);
    if (!bytes.ok()) return strobe::Status(bytes.takeError());
    void* buf = std::malloc(bytes->empty() ? 1 : bytes->size());
    if (buf == nullptr) return strobe::Status(strobe::makeError("out of memory for the profile"));
    std::memcpy(buf, bytes->data(), bytes->size());
    *data = buf;
    *size = bytes->size();
    return strobe::Status();
  }));
}

int strobe_write_file(FILE* out, const char* format) {
  if (out == nullptr) {
    return fail(strobe::makeError("no output stream given", "pass an open FILE*",
                                  strobe::ErrorKind::kUsage));
  }
  std::string f = format != nullptr ? format : "text";
  return check(strobe::inproc::withLastProfile([&](const strobe::model::Profile& prof) {
    return strobe::inproc::writeProfileStream(prof, f, out);
  }));
}

uint64_t strobe_dropped_spans(void) {
  return strobe::inproc::droppedSpans();
}

int strobe_report(FILE* out) {
  if (out == nullptr) {
    return fail(strobe::makeError("no output stream given", "pass stdout or an open FILE*",
                                  strobe::ErrorKind::kUsage));
  }
  return check(strobe::inproc::withLastProfile([&](const strobe::model::Profile& prof) {
    return strobe::inproc::writeProfileStream(prof, "text", out);
  }));
}

const char* strobe_engine_name(void) {
  t_engine = strobe::inproc::engineName();
  return t_engine.c_str();
}

const char* strobe_engine_fallback_reason(void) {
  t_fallback = strobe::inproc::engineFallbackReason();
  return t_fallback.c_str();
}

uint64_t strobe_dropped_samples(void) {
  return strobe::inproc::droppedSamples();
}

uint64_t strobe_sample_count(void) {
  return strobe::inproc::sampleCount();
}

const char* strobe_last_error(void) {
  return t_error.c_str();
}

int strobe_serve_http(const char* addr) {
  return check(strobe::inproc::serveHttp(addr != nullptr ? addr : "127.0.0.1:6060"));
}

int strobe_http_port(void) {
  return strobe::inproc::httpPort();
}

void strobe_jit_register(const char* name, const void* start, size_t size) {
  strobe::inproc::jitRegister(name, reinterpret_cast<uintptr_t>(start), size);
}

void strobe_jit_register_lines(const void* start, const strobe_jit_line* lines, size_t n) {
  static_assert(sizeof(strobe_jit_line) >= sizeof(void*) + sizeof(char*) + sizeof(uint32_t));
  std::vector<strobe::inproc::JitLineIn> rows(lines != nullptr ? n : 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i] = {reinterpret_cast<uintptr_t>(lines[i].pc), lines[i].file, lines[i].line};
  }
  strobe::inproc::jitRegisterLines(reinterpret_cast<uintptr_t>(start), rows.data(), rows.size());
}

void strobe_jit_unregister(const void* start) {
  strobe::inproc::jitUnregister(reinterpret_cast<uintptr_t>(start));
}

}  // extern "C"
