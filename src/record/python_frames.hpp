// PythonFrames: the recorder's part in Python frames. It follows which
// processes run a CPython interpreter (from their mappings: the first
// libpython3.N / python3.N file that probes as one, cpython/interpreter.hpp)
// and turns the Python frames read at a sample (cpython::RuntimeFrame:
// code object address + instruction offset) into model locations
// (model/interpreter_frames.hpp), naming each code object once from the
// process's memory (cpython::CodeReader) while the process runs.
//
// A process whose interpreter strobe does not read (another version, a
// free-threaded build) gets one note, once (takeNotes()); its native frames
// stay as they are. A frame whose code object cannot be read (the process
// exited before its first sample was drained) is one "[unnamed Python
// code]" frame.
// Owns: per process, its interpreter, memory reader and code reader.
// Thread safety: none; the converter's thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cpython/code_reader.hpp"
#include "cpython/frames.hpp"
#include "cpython/interpreter.hpp"
#include "cpython/remote_memory.hpp"
#include "model/profile.hpp"
#include "unwind/module_cfi.hpp"

namespace strobe::record {

inline constexpr std::string_view kUnnamedPythonCode = "[unnamed Python code]";

struct PythonFramesStats {
  uint64_t processes = 0;     // processes found running an interpreter strobe reads
  uint64_t frames = 0;        // Python frames placed in stacks
  uint64_t unnamed = 0;       // of those: their code object could not be read
  uint64_t code_objects = 0;  // code objects named (read from the processes)
  uint64_t replaced = 0;      // cached code objects found replaced at their address
  uint64_t naming_ns = 0;     // CPU time spent naming code objects (the reads)
};

class PythonFrames {
 public:
  // A file mapping of `pid` (MMAP2 or /proc/PID/maps): probed when it may be
  // an interpreter and the process has none yet.
  void onMapping(pid_t pid, uint64_t start, uint64_t pgoff, const std::string& path);
  // A new process `child` forked from `parent`: it runs the same
  // interpreter at the same addresses.
  void onFork(pid_t parent, pid_t child);
  // The process's image was replaced (exec) or the process is gone.
  void forget(pid_t pid);
  // The interpreter strobe reads in `pid`, or null.
  [[nodiscard]] const cpython::Interpreter* interpreter(pid_t pid) const;
  // Processes whose interpreter was found since the last call (for the BPF
  // engine to learn their layout), and notes of one line each on
  // interpreters strobe does not read.
  std::vector<pid_t> takeFound() { return std::move(found_); }
  std::vector<std::string> takeNotes() { return std::move(notes_); }

  // For a capture without BPF: "" when no process ran an interpreter strobe
  // reads, else one line saying that its Python frames need the BPF engine
  // and how to get it (the first such process named, the others counted).
  [[nodiscard]] std::string withoutBpfNote() const;

  // The location of one Python frame of `pid` (see above).
  model::LocationId locate(model::Profile& p, pid_t pid, const cpython::RuntimeFrame& f);
  // The unwind rule at `pc` when it lies in one of the process's perf
  // trampolines (CPython 3.12+ with -X perf: code without unwind
  // information, a copy of the interpreter's template; unwind/
  // stub_rules.hpp), found by reading the code at `pc` once per address;
  // kCfaNone otherwise. `caller`: pc is a return address.
  unwind::Rule trampolineRule(pid_t pid, uint64_t pc, bool caller);

  // Starts a new epoch: each cached code object is checked once more on its
  // next use (cpython::CodeReader). Once per drain pass.
  void nextEpoch();

  [[nodiscard]] PythonFramesStats stats() const;

 private:
  struct Code {
    uint64_t serial = 0;  // the CodeReader entry it was made from
    model::FunctionId function = model::kNone;
    std::unordered_map<uint32_t, model::LocationId> locations;  // by instruction offset
  };
  struct Process {
    cpython::Interpreter interpreter;
    std::unique_ptr<cpython::RemoteMemory> memory;
    std::unique_ptr<cpython::CodeReader> reader;
    std::unordered_map<uint64_t, Code> code;  // by code object address
    std::string cwd;                          // the process's working directory at discovery
    // Addresses checked for a trampoline: the pc's offset in its copy of
    // the template, or -1 when the code there is none.
    std::unordered_map<uint64_t, int32_t> trampolines;
  };
  void adopt(pid_t pid, cpython::Interpreter in, std::unique_ptr<cpython::RemoteMemory> memory);
  static std::string absoluteFile(const Process& proc, const std::string& file);
  model::LocationId unnamed(model::Profile& p);

  std::unordered_map<pid_t, Process> processes_;
  std::unordered_map<pid_t, std::unordered_set<std::string>> probed_;  // files probed, by pid
  std::vector<pid_t> found_;
  std::string first_found_;  // "python3.11 (process 42, Python 3.11.2)"

  std::vector<std::string> notes_;
  std::unordered_map<std::string, bool> noted_;  // interpreter files noted once each
  model::LocationId unnamed_ = model::kNone;
  PythonFramesStats stats_;
  uint64_t retired_named_ = 0, retired_replaced_ = 0;  // of forgotten processes
};

}  // namespace strobe::record
