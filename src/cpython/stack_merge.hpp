// mergeStacks: one sample's native frames and its Python frames (read at
// the same instant) as one stack, the Python frames in place of the native
// eval-loop frames that run them.
//
// Each native _PyEval_EvalFrameDefault frame runs one activation of Python
// frames: walking both stacks from the leaf, every native eval frame is
// replaced by the Python frames from the current one down to (and
// including) the next one marked kFrameEntry. Native frames between them
// (a C function a Python function called, a C extension calling back into
// Python) stay where they are. Python frames left when the native stack
// ends (it was cut short) go at the root end, in order; a native eval frame
// with no Python frames left stays as it is.
// Thread safety: pure. No allocation beyond `out`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpython/frames.hpp"

namespace strobe::cpython {

// A frame of a merged stack: a native address, or Python frame `value`
// (an index into the Python frames).
struct MergedFrame {
  bool python = false;
  uint64_t value = 0;
  bool operator==(const MergedFrame&) const = default;
};

// `native`: leaf first. `is_eval(address)`: whether a native frame runs the
// eval loop. `python`: leaf first. `out` is cleared, then filled leaf first.
template <typename IsEval>
void mergeStacks(const uint64_t* native, size_t native_count, IsEval&& is_eval,
                 const RuntimeFrame* python, size_t python_count, std::vector<MergedFrame>& out) {
  out.clear();
  size_t p = 0;
  for (size_t i = 0; i < native_count; ++i) {
    if (p < python_count && is_eval(native[i])) {
      for (; p < python_count; ++p) {
        out.push_back(MergedFrame{true, p});
        if ((python[p].flags & kFrameEntry) != 0) {
          ++p;
          break;
        }
      }
      continue;
    }
    out.push_back(MergedFrame{false, native[i]});
  }
  for (; p < python_count; ++p) out.push_back(MergedFrame{true, p});
}

}  // namespace strobe::cpython
