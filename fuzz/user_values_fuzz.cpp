// What users type: durations (-d, --since, --interval), pid lists (-p),
// call-graph modes (-g), format names and output paths (--format, -o), and
// preload mode's STROBE_* variables. Each parser must refuse bad text with
// an Error, never crash; accepted values must keep their documented bounds.
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/duration.hpp"
#include "cli/call_graph.hpp"
#include "fuzz/fuzz_input.hpp"
#include "inproc/preload_env.hpp"
#include "output/format.hpp"
#include "record/options.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  const std::string_view text = fuzz::asText({data, size});

  (void)parseDuration(text);
  if (auto d = record::parseSessionDuration(text)) {
    check(*d >= 1'000'000 && *d <= 1'000'000'000'000'000'000ULL);
  }
  if (auto pids = record::parsePidList(text)) {
    for (pid_t p : *pids) check(p > 0);
  }
  if (auto g = cli::parseCallGraph(text)) {
    check(g->stack_copy % 8 == 0 && g->stack_copy <= cli::kMaxStackCopy);
  }
  (void)output::parseFormat(text);
  (void)output::formatFromPath(text);
  if (auto sig = inproc::parseSignal(text)) {
    // STROBE_SIGNAL never takes a signal with another meaning (SIGSEGV, SIGTERM, ...).
    const bool own = *sig == SIGUSR1 || *sig == SIGUSR2 || (*sig >= SIGRTMIN && *sig <= SIGRTMAX);
    check(inproc::checkToggleSignal(std::string(text), *sig).ok() == own);
  }
  (void)inproc::numberedPath(std::string(text), 7);
  (void)inproc::expandPid(std::string(text), 1234);

  // The STROBE_* environment: the parts of the input are its values.
  static const char* const kVars[] = {"STROBE_OUTPUT", "STROBE_FORMAT", "STROBE_HTTP",
                                      "STROBE_SIGNAL", "STROBE_FREQ",   "STROBE_DEPTH",
                                      "STROBE_MODE",   "STROBE_ENGINE"};
  constexpr size_t kCount = sizeof kVars / sizeof kVars[0];
  auto parts = fuzz::splitParts({data, size}, kCount);
  for (size_t i = 0; i < kCount; ++i) {
    std::string v(fuzz::asText(parts[i]));
    v = v.substr(0, v.find('\0'));  // an environment value ends at its first NUL
    if (v.empty()) {
      ::unsetenv(kVars[i]);
    } else {
      ::setenv(kVars[i], v.c_str(), 1);
    }
  }
  (void)inproc::readPreloadConfig();
  return 0;
}
