// Exit statuses of the strobe command, one place for all of them. `record`
// (and `top` with a command) otherwise returns the profiled command's own
// status (128+N for signal N).
// Thread safety: constants and a pure function.
#pragma once

#include "base/log.hpp"
#include "base/result.hpp"

namespace strobe::cli {

inline constexpr int kExitError = 1;        // anything else that failed
inline constexpr int kExitUsage = 2;        // bad arguments
inline constexpr int kExitPermission = 3;   // the kernel refused perf_event_open
inline constexpr int kExitUnsupported = 4;  // no PMU / kernel lacks a feature
// Several processes match -P NAME, or several functions annotate's FUNCTION.
inline constexpr int kExitAmbiguous = 5;
// record, import: the recording cannot be written where -o says. Found before the
// command starts (it then never runs), or at the end (what was recorded is
// then kept elsewhere, as the message says); never the command's status.
inline constexpr int kExitOutput = 6;
// diff --fail-on-slower: the total or a function was slower by more than asked.
inline constexpr int kExitSlower = 7;
inline constexpr int kExitCannotExecute = 126;
inline constexpr int kExitNotFound = 127;  // the command to profile does not exist

inline constexpr const char* kExitCodesHelp =
    "Exit status: record and top -- CMD return the command's own status (128+N\n"
    "if it died of signal N); 1 error, 2 usage error, 3 permission denied by the\n"
    "kernel (perf_event_paranoid, capabilities; --engine bpf needs root or\n"
    "CAP_BPF+CAP_PERFMON), 4 event (or, for top, terminal; --engine bpf: BPF)\n"
    "not supported here, 5 several processes match -P NAME (or functions match\n"
    "annotate's FUNCTION), 6 the recording cannot be written where -o says\n"
    "(record, import), 7 slower than diff --fail-on-slower allows, 126 command\n"
    "not executable, 127 command, pid or process name not found.";

inline int exitCodeFor(const Error& e) {
  switch (e.kind) {
    case ErrorKind::kUsage:
      return kExitUsage;
    case ErrorKind::kPermission:
      return kExitPermission;
    case ErrorKind::kUnsupported:
      return kExitUnsupported;
    case ErrorKind::kCannotExecute:
      return kExitCannotExecute;
    case ErrorKind::kNotFound:
      return kExitNotFound;
    case ErrorKind::kGeneric:
    case ErrorKind::kCorrupt:
      return kExitError;
  }
  return kExitError;
}

// Says `e` on stderr and returns the status of a command that failed with
// it: a usage error stays one, anything else is 1.
inline int failWith(const Error& e) {
  logError(e);
  return exitCodeFor(e) == kExitUsage ? kExitUsage : kExitError;
}

}  // namespace strobe::cli
