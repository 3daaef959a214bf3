// The guarded frame-pointer walk of the timer engine's signal handler.
//
// regsFromContext() reads pc, frame pointer and stack pointer from the
// ucontext_t a SA_SIGINFO handler receives (one file per architecture:
// fp_walk_x86_64.cpp, fp_walk_aarch64.cpp). walkFramePointers() follows the
// frame records ([fp] = caller's fp, [fp + 8] = return address, the layout of
// both x86-64 and AArch64) and stops on a misaligned or non-increasing frame
// pointer, a frame outside the thread's stack, a zero return address, or
// unreadable memory. When the stack's upper bound is known, reads are checked
// against [sp, stack_hi); when it is not (0), every read goes through
// process_vm_readv on the process itself, which fails instead of faulting.
//
// Async-signal safety: both functions are async-signal-safe (no allocation,
// no locks, only the process_vm_readv syscall). Thread safety: pure.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace strobe::inproc {

struct Regs {
  uint64_t pc = 0;
  uint64_t fp = 0;
  uint64_t sp = 0;
};

Regs regsFromContext(const void* ucontext);

// Writes the leaf pc then return addresses (as found, not adjusted) into
// out[0..max); returns how many. `self` is the process's pid (for the probe).
uint32_t walkFramePointers(const Regs& regs, uint64_t stack_hi, pid_t self, uint64_t* out,
                           uint32_t max);

}  // namespace strobe::inproc
