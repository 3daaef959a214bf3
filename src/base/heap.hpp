// The malloc policy of a short-lived command that builds a large in-memory
// index and then exits (`strobe symbolize`, `strobe report`): the heap grows in large steps
// and keeps what it has, one arena serves every thread, the heap's first
// 64 MB are advised for transparent huge pages, and allocations start at
// the first huge page boundary (the part of the heap below it can only
// have small pages; it is reserved and never touched).
//
// Why: a symbolization of 20,000 addresses builds ~15 MB of tables in
// vectors that grow, are copied and freed; with glibc's defaults every
// large vector is a fresh mmap and each thread has its own arena, so the
// same memory is faulted in again and again. A page fault costs 5-10 us in
// a VM, and faults were a third of the command's time (docs/BENCHMARKS.md).
// Not for long-running processes (the recorder, libstrobe): memory is
// never handed back to the system, and huge pages raise the RSS.
// Call once, before any thread starts. When transparent huge pages are off
// the advice does nothing; the rest still holds. Thread safety: none.
#pragma once

namespace strobe {

void preferLargeHeap();

}  // namespace strobe
