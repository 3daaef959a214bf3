// Stack completeness: how much of the sampled weight (CPU time for the time
// events) has a call stack that reaches its thread's entry, and why the rest
// ends early. Feeds the one-line summary every report prints
// (output/stack_completeness.hpp).
//
// It is judged from the stacks the reports show, so that a report's stacks
// and its completeness line cannot disagree: a sample reached its thread's
// entry when one of its frames (any inline level) is a thread entry
// function (isThreadEntry), or its only frame is [kernel] (a kernel thread,
// which has no user stack), and no frame is [missing caller] (-g fp skipped a
// caller there; model/synthetic_frames.hpp). The other samples are counted
// by why their stack ended: the recorder's unwinder (-g dwarf / auto) says
// so in Sample::stack_end (the end of the stack copy, code without CFI, an
// unmapped or unreadable frame, or an outermost frame that is no known
// entry function); otherwise the frame-pointer chain ended early.
// Unsymbolized locations never count as an entry.
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.hpp"

namespace strobe::model {

// Sums of sample weights (ns of CPU for the time events).
struct StackCompleteness {
  uint64_t total = 0;
  uint64_t reached = 0;         // reached the thread's entry
  uint64_t missing_caller = 0;  // a [missing caller] frame: -g fp skipped a caller
  uint64_t stack_copy = 0;      // truncated at the end of the stack copy
  uint64_t no_cfi = 0;          // truncated: no unwind information
  uint64_t bad_frame = 0;       // truncated: unmapped code or an inconsistent frame
  uint64_t unknown_entry = 0;   // the unwinder reached an outermost frame that is no known entry
  uint64_t ended = 0;           // the frame-pointer chain ended before an entry function
  // Not in total: samples with no stack at all, which no report draws (an
  // off-CPU interval whose switch-out was not recorded: the thread was off
  // CPU when recording began).
  uint64_t no_stack = 0;
};

StackCompleteness stackCompleteness(const Profile& p);

// Whether `name` (a function's name as symbolized, with or without an ELF
// symbol version: "__libc_start_main@@GLIBC_2.34") is where a thread's
// stack begins in a usual runtime:
//   glibc  _start, __libc_start_main, __libc_start_call_main, start_thread,
//          clone, clone3 (and their __-prefixed aliases)
//   Go     runtime.goexit (below every goroutine), runtime.main,
//          runtime.mstart, runtime.mstart0, runtime.rt0_go
//   Rust   std's thread start: std::sys::...::thread::Thread::new::thread_start
//   Linux  ret_from_fork, ret_from_fork_asm (kernel threads, with -k)
bool isThreadEntry(std::string_view name);

}  // namespace strobe::model
