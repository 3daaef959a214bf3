#include "cpython/remote_memory.hpp"

#include <sys/uio.h>

namespace strobe::cpython {

bool RemoteMemory::read(uint64_t address, void* out, size_t n) const {
  if (n == 0) return true;
  ++reads_;
  iovec local{out, n};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address)), n};
  return ::process_vm_readv(pid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

}  // namespace strobe::cpython
