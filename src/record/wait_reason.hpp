// Why a thread blocked, read from the kernel's own stack at its switch-out
// (the off-CPU event's kernel callchain): the first frame, from the leaf,
// that says it decides. A syscall's entry (__x64_sys_NAME, __do_sys_NAME,
// ksys_NAME, ...) says it by the syscall's name; a few kernel functions say
// it on their own (do_nanosleep: sleep; futex_wait*, rwsem_down_*: lock;
// io_schedule, pipe_read, a page fault: I/O). A stack where no frame says
// anything is kOther; no kernel stack at all is kUnknown. Preemption is not
// decided here: the SWITCH record's flag says it.
//
// Owns: nothing. Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace strobe::record {

// What one kernel function says (kUnknown: nothing). Compiler suffixes
// (".isra.0", ".constprop.0") and a module suffix (" [ext4]") are ignored.
model::OffCpuReason reasonOfKernelFunction(std::string_view name);

// The reason for a kernel stack given by its function names, leaf first.
model::OffCpuReason classifyKernelStack(std::span<const std::string> names);

// The kernel callchains of the off-CPU samples, for classifying them once
// the kernel's symbols are read (after recording: the converter never
// symbolizes). chains[k] is leaf first; samples[i] names a sample of the
// Profile and its chain.
struct OffCpuKernelChains {
  std::vector<std::vector<uint64_t>> chains;
  struct Use {
    size_t sample;  // index in Profile::samples()
    uint32_t chain;
  };
  std::vector<Use> samples;
};

// Sets the reason of every sample in `c` from its chain, naming addresses
// with kernel_name (the enclosing kernel function's name, "" when unknown).
// Returns how many samples got a reason other than kUnknown.
size_t applyWaitReasons(model::Profile& p, const OffCpuKernelChains& c,
                        const std::function<std::string(uint64_t)>& kernel_name);

}  // namespace strobe::record
