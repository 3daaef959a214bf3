// Why a thread blocked, read from the stack where it left its CPU once it is
// symbolized: the first frame, from the leaf, that says it decides.
//   kernel frames (recorded with -k): a system call's entry (__x64_sys_NAME,
//     __do_sys_NAME, ksys_NAME, ...) by the call's name; a few kernel
//     functions on their own (do_nanosleep: sleep; futex_wait*, rwsem_down_*,
//     __mutex_lock: lock; io_schedule, pipe_read, a page fault: I/O);
//   user frames (the first kMaxUserFrames from the leaf): the C library's
//     function the thread blocked in, by name (nanosleep: sleep; read, recv,
//     poll, epoll_wait, ...: I/O; futex waits, pthread_mutex_lock,
//     pthread_cond_wait, pthread_join, sem_wait, ...: lock; wait4,
//     sigsuspend, ...: other), glibc's internal prefixes and suffixes
//     (__GI_, __libc_, _nocancel, ...) ignored.
// A stack where no frame decides is kOther; an empty one kUnknown.
// Preemption is not decided here: the SWITCH record's flag says it.
//
// Owns: nothing. Thread safety: pure functions (applyWaitReasons writes
// only the profile it is given).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "model/profile.hpp"

namespace strobe::record {

// User frames looked at, from the leaf: the C library's few frames of a
// blocking call; deeper frames are the program's, whose names say nothing.
inline constexpr size_t kMaxUserFrames = 4;

struct WaitFrame {
  std::string_view name;  // the function's (demangled) name, "" when unknown
  bool kernel = false;    // a kernel frame (-k)
};

// What one kernel function says (kUnknown: nothing). Compiler suffixes
// (".isra.0", ".constprop.0") and a module suffix (" [ext4]") are ignored.
model::OffCpuReason reasonOfKernelFunction(std::string_view name);
// What one user-space function says (kUnknown: nothing).
model::OffCpuReason reasonOfUserFunction(std::string_view name);

// The reason for a stack, leaf first.
model::OffCpuReason classifyWait(std::span<const WaitFrame> leaf_first);

// Sets the reason of every off-CPU sample of `p` that was not preempted,
// from its symbolized stack (each distinct stack classified once). Returns
// how many samples got sleep, I/O or lock.
size_t applyWaitReasons(model::Profile& p);

}  // namespace strobe::record
