// The JIT registration API behind strobe_jit_register / _register_lines /
// _unregister (include/strobe/strobe.h): a process-wide record of the code a
// JIT generated, with the times it was registered and unregistered.
//
// In-process: a library session's profile (Collector::toProfile) gets every
// registration that was live at some point during the session, as JitCode
// of source kApi, so its frames are named by (address, sample time) like
// any JIT code (symbolize/jit_table.hpp): memory reused for a second
// function is named after the function that was there when sampled.
// Out of process: each registration is also written to the jitdump file of
// JitdumpWriter (when STROBE_JITDUMP names a directory).
//
// Memory: live registrations are kept; unregistered ones only while a
// session runs (they may hold its samples), dropped when it ends.
// Cost: one uncontended mutex, a hash-map update and a copy of the name per
// call (docs/BENCHMARKS.md), plus one write(2) with the code when writing a
// jitdump.
// Thread safety: every function is thread-safe (one mutex). None is
// async-signal-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/profile.hpp"

namespace strobe::inproc {

struct JitLineIn {
  uint64_t pc = 0;  // address in the function where the line starts
  const char* file = nullptr;
  uint32_t line = 0;
};

// Ignored: a null or empty name, a null start, size 0, a range past the
// address space. A start registered again replaces what was there.
void jitRegister(const char* name, uint64_t start, uint64_t size);
// Lines of the live function that starts at `start` (replacing earlier
// ones); rows outside the function are dropped.
void jitRegisterLines(uint64_t start, const JitLineIn* lines, size_t n);
void jitUnregister(uint64_t start);

// Sessions: while one runs, unregistered code is kept (begin); after its
// profile was built it is dropped (end). jitSessionBegin takes no lock (a
// session calls it under its own, which fork() takes after the registry's).
void jitSessionBegin();
void jitSessionEnd();
// Copies the registrations live at some time in [from_ns, to_ns]
// (CLOCK_MONOTONIC) into `p` (times relative to its meta start).
void addRegisteredJitCode(model::Profile& p, uint64_t from_ns, uint64_t to_ns);
// The jitdump this process writes, "" when none (a library session reads
// the registry instead of it).
std::string ownJitdumpPath();

}  // namespace strobe::inproc
