// The perf engine (engine.hpp): perf events whose kernel samplers write
// each sample (callchain, or user registers and a stack copy) into mmapped
// rings. How it covers threads:
//   launch  one event per CPU on the command before it execs, with `inherit`
//           (so every thread and child process is followed; --no-inherit:
//           only the command's first thread), enabled on exec.
//   attach  the kernel refuses to mmap an inherited event opened with
//           cpu = -1, so either (a) threads x CPUs events with `inherit`,
//           redirected (PERF_EVENT_IOC_SET_OUTPUT) into one ring per CPU:
//           threads created later inherit the event from their creator, even
//           short-lived ones, with no work for strobe; or (b) one event per
//           thread without inherit, its own small ring, and a rescan of
//           /proc/PID/task every 100 ms (threads living less than that may be
//           missed). (a) is chosen while threads x CPUs <= kInheritMaxFds and
//           the descriptor limit allows it (samply switches at ~1,000 too);
//           (b) for larger targets. When even one descriptor per thread does
//           not fit, per-CPU events on every task, filtered to the targets'
//           pids, are used where perf_event_paranoid permits (c).
//   system  one event per CPU on every task (pid = -1).
// --off-cpu adds a second event (perf::makeOffCpuAttr) beside each of these,
// in its own ring, so that its lost records are switch records and the
// converter knows which stream a record came from.
// It cannot follow a process's threads that it did not see being created
// in per-thread attach mode (rescans); it counts the CPU no sample covers
// where its events count only the targets (launch, inherit attach).
// Thread safety: one thread (the session's).
#pragma once

#include <cstddef>

#include "record/engine.hpp"

namespace strobe::record {

// Above this many descriptors an attach uses one event per thread.
inline constexpr size_t kInheritMaxFds = 1024;

}  // namespace strobe::record
