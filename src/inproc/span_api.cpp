// The span and role entry points of include/strobe/strobe.h (spans.hpp has
// the hot path), and the constructor that makes the span channel at load
// when `strobe record` launched the program (STROBE_CHANNEL), so that spans
// from its first instruction are kept.
#include "inproc/spans.hpp"
#include "strobe/strobe.h"

namespace {

__attribute__((constructor)) void spanChannelInit() {
  strobe::inproc::spans::initFromEnvironment();
}

}  // namespace

extern "C" {

void strobe_span_begin(const char* name) {
  strobe::inproc::spans::begin(name);
}

void strobe_span_end(void) {
  strobe::inproc::spans::end();
}

void strobe_thread_role(const char* role, int index) {
  strobe::inproc::spans::setRole(role, index);
}

}  // extern "C"
