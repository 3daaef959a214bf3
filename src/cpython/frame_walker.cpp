#include "cpython/frame_walker.hpp"

#include <fmt/format.h>

#include <cstring>

namespace strobe::cpython {
namespace {

uint64_t fieldU64(const uint8_t* frame, uint32_t at) {
  uint64_t v = 0;
  std::memcpy(&v, frame + at, sizeof v);
  return v;
}

}  // namespace

Result<std::vector<ThreadFrames>> FrameWalker::walkAll(size_t max_frames) const {
  const Layout& l = in_.layout;
  uint64_t interp = 0;
  if (!readPointer(in_.runtime + l.runtime_interpreters_head, interp)) {
    return systemError(fmt::format("cannot read _PyRuntime of process {}", mem_.pid()));
  }
  std::vector<ThreadFrames> out;
  size_t states = 0;
  for (size_t i = 0; i < kMaxInterpreters && interp != 0; ++i) {
    uint64_t tstate = 0;
    if (!readPointer(interp + l.interp_threads_head, tstate)) break;
    while (tstate != 0 && states++ < kMaxThreadStates) {
      out.push_back(walkThread(tstate, max_frames));
      if (!readPointer(tstate + l.tstate_next, tstate)) break;
    }
    if (!readPointer(interp + l.interp_next, interp)) break;
  }
  return out;
}

ThreadFrames FrameWalker::walkThread(uint64_t tstate, size_t max_frames) const {
  const Layout& l = in_.layout;
  ThreadFrames t;
  t.tstate = tstate;
  uint64_t native_tid = 0;
  if (!mem_.readValue(tstate + l.tstate_native_thread_id, native_tid)) {
    t.truncated = true;
    return t;
  }
  t.tid = static_cast<pid_t>(native_tid);
  uint64_t frame = 0;
  if (l.tstate_current_frame != kNoField) {
    if (!readPointer(tstate + l.tstate_current_frame, frame)) t.truncated = true;
  } else {
    uint64_t cframe = 0;
    if (!readPointer(tstate + l.tstate_cframe, cframe) ||
        (cframe != 0 && !readPointer(cframe + l.cframe_current_frame, frame))) {
      t.truncated = true;
    }
  }
  const uint32_t size = l.frameReadSize();
  uint8_t buf[256];
  if (size > sizeof buf) {
    t.truncated = true;
    return t;
  }
  // Shim frames count toward the bound too, as in the BPF program.
  for (size_t n = 0; frame != 0; ++n) {
    if (n >= max_frames || !mem_.read(frame, buf, size)) {
      t.truncated = true;
      break;
    }
    const uint64_t code = fieldU64(buf, l.frame_code);
    const uint64_t instr = fieldU64(buf, l.frame_instr);
    const uint8_t owner = buf[l.frame_owner];
    if (l.entryByShim() && owner == kOwnerCStack) {
      if (!t.frames.empty()) t.frames.back().flags |= kFrameEntry;
    } else {
      RuntimeFrame f;
      f.code = code;
      f.offset =
          instr >= code && instr - code <= UINT32_MAX ? static_cast<uint32_t>(instr - code) : 0;
      if (!l.entryByShim() && buf[l.frame_is_entry] != 0) f.flags |= kFrameEntry;
      t.frames.push_back(f);
    }
    frame = fieldU64(buf, l.frame_previous);
  }
  return t;
}

}  // namespace strobe::cpython
