// RemoteMemory: reads another process's memory with process_vm_readv (no
// ptrace stop; the kernel checks the same permission as ptrace attach:
// root, CAP_SYS_PTRACE, or the same user under yama's ptrace_scope 0/1
// for a descendant). A read that is refused or crosses an unmapped page
// fails (false), never faults. Counts its reads, for strobe's cost figures.
// Thread safety: read() may run on any thread; the counters are not atomic
// (one thread per RemoteMemory for exact counts).
#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>

namespace strobe::cpython {

class RemoteMemory {
 public:
  explicit RemoteMemory(pid_t pid) : pid_(pid) {}
  [[nodiscard]] pid_t pid() const { return pid_; }
  // Copies `n` bytes at `address` into `out`; false unless all were read.
  bool read(uint64_t address, void* out, size_t n) const;
  template <typename T>
  bool readValue(uint64_t address, T& out) const {
    return read(address, &out, sizeof out);
  }
  [[nodiscard]] uint64_t reads() const { return reads_; }

 private:
  pid_t pid_;
  mutable uint64_t reads_ = 0;
};

}  // namespace strobe::cpython
