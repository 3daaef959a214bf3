// Interpreter: what strobe knows of one process's CPython interpreter to
// read its Python frames: the layout of its version (layout.hpp), where
// its _PyRuntime and PyCode_Type are, and which code is its eval loop
// (_PyEval_EvalFrameDefault: each native frame of it runs one activation
// of Python frames, which replace it in a stack, stack_merge.hpp).
//
// An interpreter is found by the file that holds it, mapped in the
// process: a libpython3.N.so (pyenv, most embedders) or a python3.N
// executable linked statically (Debian's /usr/bin/python3.11). The file
// must define _PyRuntime and Py_Version (read from the file: the version
// decides the layout); 3.13+ also state their layout in _Py_DebugOffsets at
// the start of _PyRuntime, read from the process when it can be, which the
// table must agree with (a disagreement keeps the interpreter's own
// offsets and is noted). A version or build strobe does not read is an
// error of one line (kUnsupported).
// Owns: plain values. Thread safety: the probe functions read files and
// the process's memory; call from any thread.
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "cpython/layout.hpp"

namespace strobe::cpython {

class RemoteMemory;

struct AddressRange {
  uint64_t start = 0;  // AVMA, inclusive
  uint64_t end = 0;    // exclusive
  [[nodiscard]] bool contains(uint64_t a) const { return a >= start && a < end; }
};

struct Interpreter {
  pid_t pid = 0;
  std::string path;  // the file holding the interpreter
  Layout layout;
  uint64_t runtime = 0;    // AVMA of _PyRuntime
  uint64_t code_type = 0;  // AVMA of PyCode_Type
  // _PyEval_EvalFrameDefault and its split-off parts (.cold), AVMA.
  std::vector<AddressRange> eval_ranges;
  // 3.12+: the template every perf trampoline (-X perf) is a copy of
  // (_Py_trampoline_func_start .. _end, from the file); empty when none.
  std::vector<uint8_t> trampoline;
  // Where the layout came from: "table" or "_Py_DebugOffsets"; and a
  // disagreement between the two ("" when none).
  std::string layout_source;
  std::string layout_note;

  [[nodiscard]] bool isEvalFrame(uint64_t address) const {
    for (const AddressRange& r : eval_ranges) {
      if (r.contains(address)) return true;
    }
    return false;
  }
};

// Whether a mapped file's name looks like a CPython interpreter, by its
// last component: libpython3.N*.so* or python3.N* (the cheap test before
// opening it).
bool isInterpreterPath(std::string_view path);

// Reads the interpreter file `path`, mapped in `pid` at `map_start` from
// file offset `map_pgoff` (any of its mappings). `memory` (may be null)
// reads the process for 3.13+'s _Py_DebugOffsets; without it, or when the
// read fails, the file's initial bytes of _PyRuntime are read instead.
// kNotFound: not an interpreter (no _PyRuntime or Py_Version defined);
// kUnsupported: a version or build strobe does not read (the message
// names it); other errors: the file could not be read.
Result<Interpreter> probeInterpreter(pid_t pid, const std::string& path, uint64_t map_start,
                                     uint64_t map_pgoff, const RemoteMemory* memory);

// A file mapping of a process (as /proc/PID/maps or MMAP2 records say).
struct MappedFile {
  uint64_t start = 0;
  uint64_t pgoff = 0;
  std::string path;
};

// The interpreter among a process's mappings: the first file that
// isInterpreterPath and probes as one. kNotFound when none is; a file that
// is an interpreter strobe does not read gives its error (kUnsupported).
Result<Interpreter> findInterpreter(pid_t pid, const std::vector<MappedFile>& mappings,
                                    const RemoteMemory* memory);

}  // namespace strobe::cpython
