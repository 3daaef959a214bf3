// FrameWalker: reads the Python frames of a CPython process's threads from
// user space with process_vm_readv, the way strobe's BPF program reads
// them at a sample (the same fields in the same order, layout.hpp): from
// _PyRuntime through each interpreter's thread states to each thread's
// newest frame, then `previous` to the oldest, leaf first. Shim frames
// (3.12+, owned by the C stack) are left out and mark where an eval-loop
// activation began (kFrameEntry on the frame above them).
//
// The process runs on while it is read: a thread's frames can change
// between two reads, so a walk of a running thread is a best effort (the
// tests walk threads that wait in a known place). Every loop is bounded.
// Thread safety: none; one walker per thread.
#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "cpython/frames.hpp"
#include "cpython/interpreter.hpp"
#include "cpython/remote_memory.hpp"

namespace strobe::cpython {

// Bounds of a walk, as the BPF program has them.
inline constexpr size_t kMaxInterpreters = 8;
inline constexpr size_t kMaxThreadStates = 4096;

struct ThreadFrames {
  pid_t tid = 0;                     // PyThreadState.native_thread_id
  uint64_t tstate = 0;               // the thread state's address
  std::vector<RuntimeFrame> frames;  // leaf first
  bool truncated = false;            // more than max_frames, or a frame could not be read
};

class FrameWalker {
 public:
  FrameWalker(const Interpreter& interpreter, const RemoteMemory& memory)
      : in_(interpreter), mem_(memory) {}

  // Every thread state of every interpreter of the process, each with its
  // frames (at most max_frames). Fails when _PyRuntime cannot be read.
  Result<std::vector<ThreadFrames>> walkAll(size_t max_frames) const;
  // The frames of the thread state at `tstate`, newest first.
  ThreadFrames walkThread(uint64_t tstate, size_t max_frames) const;

 private:
  bool readPointer(uint64_t address, uint64_t& out) const { return mem_.readValue(address, out); }

  const Interpreter& in_;
  const RemoteMemory& mem_;
};

}  // namespace strobe::cpython
