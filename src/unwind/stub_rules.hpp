// stubRule: the unwind rule inside a small code stub that carries no unwind
// information but whose instructions are known, because a runtime copies
// one template over and over into anonymous memory: CPython 3.12+'s perf
// trampolines (`-X perf`), each a copy of the interpreter's
// _Py_trampoline_func_start .. _Py_trampoline_func_end (3.12.1 and 3.13.0:
// sub $8,%rsp; call *%rcx; add $8,%rsp; ret; a build that keeps frame
// pointers: push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret).
//
// The template is simulated from its first byte to `offset` (the pc's
// offset in the stub; for a caller, its return address's), tracking the
// CFA (the stack pointer at the stub's entry + 8) and where %rbp was
// saved, over the few instructions such stubs use: endbr64, push/pop %rbp,
// mov %rsp,%rbp, sub/add $imm8 or $imm32 to %rsp, call/jmp through a
// register, nop, ret. Any other instruction before `offset` gives no rule
// (kCfaNone), as does an offset past the template or inside an instruction.
// The architecture's decoder lives in stub_rules_<arch>.cpp; an
// architecture without one knows no stub.
// Thread safety: pure. No allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "unwind/module_cfi.hpp"

namespace strobe::unwind {

Rule stubRule(const uint8_t* code, size_t size, size_t offset);

// The offset just after the template's first indirect call: where a return
// address into a stub points. 0 when the template makes no such call.
size_t stubReturnOffset(const uint8_t* code, size_t size);

}  // namespace strobe::unwind
