// Which kallsyms names the kernel frames of a perf.data recording: the copy
// perf record left in its build-id cache ([kernel.kallsyms]/BUILD-ID/kallsyms,
// which holds the recording boot's addresses), else this machine's
// /proc/kallsyms when the recording's kernel is the running one (the same
// build-id, or without one the same release), relocated when the kernel was
// loaded elsewhere since (KASLR: another boot), else none, with a note that
// says why kernel frames stay unnamed.
// Owns: a relocated copy (a memfd) for as long as the KernelSymbols lives.
// Thread safety: none.
#pragma once

#include <cstdint>
#include <string>

#include "base/fd.hpp"
#include "import/module_files.hpp"

namespace strobe::import {

struct RecordedKernel {
  std::string build_id;  // HEADER_BUILD_ID's [kernel.kallsyms], "" when absent
  std::string release;   // HEADER_OSRELEASE
  // The address of `text_symbol` when recorded: perf's MMAP of
  // "[kernel.kallsyms]_text" carries it as its pgoff (0: unknown).
  uint64_t text = 0;
  std::string text_symbol = "_text";
};

struct KernelSymbols {
  std::string path;  // the kallsyms to read; "" when none fits
  Fd copy;           // the relocated copy `path` names, when one was made
  std::string note;  // why kernel frames stay unnamed, or how they were named ("" when plain)
};

// The running kernel's build-id, from /sys/kernel/notes ("" when unreadable).
std::string runningKernelBuildId();

KernelSymbols kernelSymbols(const RecordedKernel& recorded, const ModuleFiles& files);

}  // namespace strobe::import
