// Interpreter frames: functions of an interpreted language (Python) in a
// stack, in place of the interpreter's own eval-loop frames that ran them,
// among the native frames (record/python_frames.hpp puts them there).
//
// A Python frame is a location of the pseudo-module "[python]" whose one
// line is already set (the symbolizer leaves it alone), so every report,
// recording and format reads it as any symbolized frame: its function is
// the code object's qualified name (co_qualname) with its file
// (co_filename) and first line (co_firstlineno), its line the line being
// run. There is one location per (function, line): offset = function id
// << 32 | line, address = the address of the code object first seen
// there (informational: code objects live at different addresses in
// different processes). Which module a frame is in tells its kind to the
// outputs (the viewer colours "[python]" frames as Python).
// Thread safety: as Profile (one writer). No I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.hpp"

namespace strobe::model {

inline constexpr std::string_view kPythonModule = "[python]";

inline bool isPythonModule(std::string_view path) {
  return path == kPythonModule;
}

// The function of a Python code object.
FunctionId pythonFunction(Profile& p, std::string_view qualname, std::string_view file,
                          uint32_t first_line);

// The location of `line` (0: unknown) of a Python function.
LocationId pythonLocation(Profile& p, FunctionId function, uint32_t line, uint64_t code_address);

// Whether a location is a Python frame.
bool isPythonLocation(const Profile& p, LocationId id);

}  // namespace strobe::model
