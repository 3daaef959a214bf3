// RuntimeFrame: one Python frame of a thread as it is read at a sample,
// before it is named: the code object's address and where in it the frame
// is, plus where the frame sits among the eval loop's activations. The BPF
// program emits these (leaf first) with each sample of a CPython process;
// FrameWalker reads the same from user space. CodeReader names them;
// stack_merge.hpp places them among the native frames.
// Thread safety: plain values.
#pragma once

#include <cstdint>

namespace strobe::cpython {

// RuntimeFrame::flags
// The frame is the first one its eval-loop activation ran (3.11: is_entry;
// 3.12+: the frame above a shim frame owned by the C stack): the native
// _PyEval_EvalFrameDefault frame that runs it runs no frame older than it.
inline constexpr uint16_t kFrameEntry = 1;

struct RuntimeFrame {
  uint64_t code = 0;    // the PyCodeObject's address in the process
  uint32_t offset = 0;  // the instruction pointer's byte offset from `code`
  uint16_t flags = 0;   // kFrameEntry
  bool operator==(const RuntimeFrame&) const = default;
};

}  // namespace strobe::cpython
