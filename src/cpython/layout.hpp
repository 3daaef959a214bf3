// Layout: where an unmodified CPython interpreter keeps what strobe reads
// from outside the process to name its Python frames, per minor version.
//
// The reading path (the BPF program at each sample, FrameWalker in user
// space, CodeReader when naming):
//   _PyRuntime.interpreters.head -> PyInterpreterState (-> next: others)
//     .threads.head -> PyThreadState (-> next), native_thread_id = the tid
//   the thread's newest frame: 3.11/3.12 tstate->cframe->current_frame,
//     3.13 tstate->current_frame
//   _PyInterpreterFrame: code (f_code / f_executable), previous, the
//     instruction pointer (prev_instr in 3.11/3.12: the code unit before the
//     next instruction; instr_ptr in 3.13: the instruction running), owner
//   where each eval-loop activation (one native _PyEval_EvalFrameDefault
//     frame) begins: 3.11 marks its first frame is_entry; 3.12+ push a shim
//     frame owned by the C stack (owner == kOwnerCStack) below it
//   PyCodeObject: co_qualname, co_filename (str), co_linetable (bytes),
//     co_firstlineno, and its bytecode inline at co_code_adaptive
//   str (compact: ASCII data after PyASCIIObject, other kinds after
//     PyCompactUnicodeObject) and bytes (ob_size, ob_sval)
//
// The offsets come from one table (layout.cpp: 3.11, 3.12, 3.13, each
// checked by a test against the interpreter's own headers) and, for 3.13,
// from the interpreter's _Py_DebugOffsets (the first member of _PyRuntime),
// which a test checks against the table. Other versions (3.10 and older:
// another frame and line-table design; 3.14+: offsets not checked yet),
// free-threaded builds (other object headers) are refused with one line.
// Thread safety: plain values and pure functions. No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"

namespace strobe::cpython {

// A field the version does not have.
inline constexpr uint32_t kNoField = UINT32_MAX;

// _PyInterpreterFrame.owner of the shim frame each eval-loop activation
// pushes first (3.12+: FRAME_OWNED_BY_CSTACK).
inline constexpr uint8_t kOwnerCStack = 3;

struct Layout {
  uint32_t version_hex = 0;  // PY_VERSION_HEX, e.g. 0x030b02f0 for 3.11.2 final

  // _PyRuntimeState
  uint32_t runtime_interpreters_head = kNoField;
  // PyInterpreterState
  uint32_t interp_next = kNoField;
  uint32_t interp_threads_head = kNoField;
  // PyThreadState
  uint32_t tstate_next = kNoField;
  uint32_t tstate_native_thread_id = kNoField;
  uint32_t tstate_cframe = kNoField;         // 3.11, 3.12
  uint32_t tstate_current_frame = kNoField;  // 3.13+
  // _PyCFrame (3.11, 3.12)
  uint32_t cframe_current_frame = kNoField;
  // _PyInterpreterFrame
  uint32_t frame_code = kNoField;
  uint32_t frame_previous = kNoField;
  uint32_t frame_instr = kNoField;
  uint32_t frame_owner = kNoField;
  uint32_t frame_is_entry = kNoField;  // 3.11 only
  // PyCodeObject (a PyVarObject: ob_size counts its code units)
  uint32_t code_filename = kNoField;
  uint32_t code_name = kNoField;
  uint32_t code_qualname = kNoField;
  uint32_t code_linetable = kNoField;
  uint32_t code_firstlineno = kNoField;
  uint32_t code_adaptive = kNoField;  // co_code_adaptive: the first code unit
  // Object headers
  uint32_t object_type = kNoField;  // PyObject.ob_type
  uint32_t var_size = kNoField;     // PyVarObject.ob_size
  uint32_t bytes_data = kNoField;   // PyBytesObject.ob_sval
  uint32_t unicode_length = kNoField;
  uint32_t unicode_state = kNoField;
  uint32_t unicode_ascii_size = kNoField;    // sizeof(PyASCIIObject)
  uint32_t unicode_compact_size = kNoField;  // sizeof(PyCompactUnicodeObject)

  [[nodiscard]] uint32_t minor() const { return (version_hex >> 16) & 0xff; }
  // 3.12+: an activation begins above a shim frame (owner kOwnerCStack);
  // 3.11: at a frame marked is_entry.
  [[nodiscard]] bool entryByShim() const { return frame_is_entry == kNoField; }
  // The size of the frame prefix holding every field above.
  [[nodiscard]] uint32_t frameReadSize() const;
  // The size of the code-object prefix holding every field above.
  [[nodiscard]] uint32_t codeHeaderSize() const { return code_adaptive; }
  bool operator==(const Layout&) const = default;
};

// "3.11.2" (a release level other than final is appended: "3.13.0rc1").
std::string versionText(uint32_t version_hex);

// The table's layout for the interpreter whose Py_Version is `version_hex`,
// or an error naming the version strobe does not read (kUnsupported).
Result<Layout> tableLayout(uint32_t version_hex);

// The size of 3.13's _Py_DebugOffsets (the bytes debugOffsetsLayout reads).
inline constexpr size_t kDebugOffsetsSize = 584;

// The layout an interpreter states in its _Py_DebugOffsets (`n` bytes from
// the start of _PyRuntime), for the minor version whose struct strobe
// knows (3.13). kCorrupt when the cookie is missing or an offset is
// implausible; kUnsupported for a free-threaded build or another minor.
Result<Layout> debugOffsetsLayout(const uint8_t* bytes, size_t n);

// The offset fields of a Layout by name ("frame_owner"), for messages and
// the tests that compare a layout with an interpreter's headers.
struct LayoutField {
  const char* name;
  uint32_t Layout::*member;
};
std::span<const LayoutField> layoutFields();

// The fields where two layouts differ, "" when none ("frame_owner 70 != 69").
std::string layoutDifference(const Layout& a, const Layout& b);

}  // namespace strobe::cpython
