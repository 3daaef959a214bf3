#include <ucontext.h>

#include "inproc/fp_walk.hpp"

namespace strobe::inproc {

Regs regsFromContext(const void* ucontext) {
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  Regs r;
  r.pc = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  r.fp = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RBP]);
  r.sp = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]);
  return r;
}

}  // namespace strobe::inproc
