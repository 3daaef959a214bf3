#include <ucontext.h>

#include "inproc/fp_walk.hpp"

namespace strobe::inproc {

Regs regsFromContext(const void* ucontext) {
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  Regs r;
  r.pc = uc->uc_mcontext.pc;
  r.fp = uc->uc_mcontext.regs[29];
  r.sp = uc->uc_mcontext.sp;
  return r;
}

}  // namespace strobe::inproc
