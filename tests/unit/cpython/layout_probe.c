/* Prints, from an installed CPython's own headers, the offsets strobe's
 * layout table (src/cpython/layout.cpp) states for that version: one line
 * "NAME VALUE" per cpython::Layout field (layoutFields() names), and
 * "version_hex VALUE". Built once per installed version's include folder
 * (tests/unit/cpython/CMakeLists.txt). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>

#include "internal/pycore_code.h"
#include "internal/pycore_frame.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"

#define FIELD(name, value) printf("%s %zu\n", name, (size_t)(value))

int main(void) {
  FIELD("version_hex", PY_VERSION_HEX);
  FIELD("runtime_interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
  FIELD("interp_next", offsetof(PyInterpreterState, next));
  FIELD("interp_threads_head", offsetof(PyInterpreterState, threads.head));
  FIELD("tstate_next", offsetof(PyThreadState, next));
  FIELD("tstate_native_thread_id", offsetof(PyThreadState, native_thread_id));
#if PY_VERSION_HEX >= 0x030d0000
  FIELD("tstate_current_frame", offsetof(PyThreadState, current_frame));
  FIELD("frame_code", offsetof(_PyInterpreterFrame, f_executable));
  FIELD("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
  FIELD("tstate_cframe", offsetof(PyThreadState, cframe));
  FIELD("cframe_current_frame", offsetof(_PyCFrame, current_frame));
  FIELD("frame_code", offsetof(_PyInterpreterFrame, f_code));
  FIELD("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
#if PY_VERSION_HEX < 0x030c0000
  FIELD("frame_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
  FIELD("frame_previous", offsetof(_PyInterpreterFrame, previous));
  FIELD("frame_owner", offsetof(_PyInterpreterFrame, owner));
  FIELD("code_filename", offsetof(PyCodeObject, co_filename));
  FIELD("code_name", offsetof(PyCodeObject, co_name));
  FIELD("code_qualname", offsetof(PyCodeObject, co_qualname));
  FIELD("code_linetable", offsetof(PyCodeObject, co_linetable));
  FIELD("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
  FIELD("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
  FIELD("object_type", offsetof(PyObject, ob_type));
  FIELD("var_size", offsetof(PyVarObject, ob_size));
  FIELD("bytes_data", offsetof(PyBytesObject, ob_sval));
  FIELD("unicode_length", offsetof(PyASCIIObject, length));
  FIELD("unicode_state", offsetof(PyASCIIObject, state));
  FIELD("unicode_ascii_size", sizeof(PyASCIIObject));
  FIELD("unicode_compact_size", sizeof(PyCompactUnicodeObject));
  /* Constants the reader relies on. */
#if PY_VERSION_HEX >= 0x030c0000
  FIELD("owner_cstack", FRAME_OWNED_BY_CSTACK);
#endif
  return 0;
}
