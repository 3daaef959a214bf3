#include "inproc/fp_walk.hpp"

#include <sys/uio.h>

namespace strobe::inproc {
namespace {

// A frame record read through the kernel: fails (false) on unmapped memory.
bool probeRead(pid_t self, uint64_t addr, uint64_t out[2]) {
  iovec local{out, 2 * sizeof(uint64_t)};
  iovec remote{reinterpret_cast<void*>(addr), 2 * sizeof(uint64_t)};
  return ::process_vm_readv(self, &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(2 * sizeof(uint64_t));
}

// Frames further apart than this are not one stack (unknown bounds only).
constexpr uint64_t kMaxFrameGap = 8ULL << 20;

}  // namespace

// Sanitizers must not instrument these reads: walking other frames reads
// their saved registers, which ASan would take for out-of-frame accesses.
__attribute__((no_sanitize("address", "thread", "undefined"))) uint32_t walkFramePointers(
    const Regs& regs, uint64_t stack_hi, pid_t self, uint64_t* out, uint32_t max) {
  if (max == 0) return 0;
  uint32_t n = 0;
  out[n++] = regs.pc;
  uint64_t fp = regs.fp;
  uint64_t low = regs.sp;
  while (n < max) {
    if (fp == 0 || (fp & 7) != 0 || fp < low) break;
    uint64_t rec[2];
    if (stack_hi != 0) {
      if (fp > stack_hi - 16) break;
      const auto* p = reinterpret_cast<const uint64_t*>(fp);
      rec[0] = p[0];
      rec[1] = p[1];
    } else {
      if (fp - low > kMaxFrameGap || !probeRead(self, fp, rec)) break;
    }
    if (rec[1] == 0) break;
    out[n++] = rec[1];
    if (rec[0] <= fp) break;  // frames grow toward higher addresses
    low = fp + 16;
    fp = rec[0];
  }
  return n;
}

}  // namespace strobe::inproc
