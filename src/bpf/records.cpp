#include "bpf/records.hpp"

#include <cstring>
#include <string>

namespace strobe::bpf {
namespace {

Error corrupt(const std::string& what, size_t offset) {
  return makeError("BPF record: " + what + " at offset " + std::to_string(offset), "",
                   ErrorKind::kCorrupt);
}

template <typename T>
std::span<const T> spanOf(const uint8_t* data, uint32_t size) {
  return {reinterpret_cast<const T*>(data), size / sizeof(T)};
}

}  // namespace

uint64_t recordTime(const uint8_t* bytes, size_t size) {
  if (size < sizeof(strobe_record)) return 0;
  uint64_t t;
  std::memcpy(&t, bytes + offsetof(strobe_record, time), sizeof t);
  return t;
}

Result<Record> decodeRecord(const uint8_t* bytes, size_t size) {
  if (size < sizeof(strobe_record)) return corrupt("a record shorter than its header", 0);
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) return corrupt("a misaligned record", 0);
  strobe_record h;
  std::memcpy(&h, bytes, sizeof h);
  if (h.size < sizeof h || h.size > size) return corrupt("a record size out of bounds", 4);
  if (h.kind < STROBE_REC_SAMPLE || h.kind > STROBE_REC_SWITCH_IN) {
    return corrupt("an unknown record kind " + std::to_string(h.kind), 0);
  }
  Record r;
  r.kind = h.kind;
  r.flags = h.flags;
  r.time = h.time;
  r.pid = h.pid;
  r.tid = h.tid;
  r.cpu = h.cpu;
  r.period = h.period;
  r.ip = h.ip;
  size_t at = sizeof h;
  for (uint32_t i = 0; i < h.nsections; ++i) {
    if (h.size - at < sizeof(strobe_section)) return corrupt("a section header past the end", at);
    strobe_section s;
    std::memcpy(&s, bytes + at, sizeof s);
    at += sizeof s;
    const size_t padded = (size_t{s.size} + 7) & ~size_t{7};
    if (padded > h.size - at)
      return corrupt("a section of " + std::to_string(s.size) + " bytes past the end",
                     at - sizeof s);
    const uint8_t* data = bytes + at;
    auto whole = [&](size_t unit) { return s.size % unit == 0; };
    switch (s.kind) {
      case STROBE_SEC_KSTACK:
        if (!whole(8)) return corrupt("a kernel stack of a partial frame", at);
        r.kernel_stack = spanOf<uint64_t>(data, s.size);
        break;
      case STROBE_SEC_USTACK:
        if (!whole(8)) return corrupt("a user stack of a partial frame", at);
        r.user_stack = spanOf<uint64_t>(data, s.size);
        r.has_user_stack = true;
        break;
      case STROBE_SEC_USTACK_BUILD_ID:
        if (!whole(sizeof(strobe_build_id_frame))) {
          return corrupt("a build-id stack of a partial frame", at);
        }
        r.build_id_stack = spanOf<strobe_build_id_frame>(data, s.size);
        r.has_user_stack = true;
        break;
      case STROBE_SEC_REGS:
        if (s.size != STROBE_REGS_COUNT * 8)
          return corrupt("a register block of the wrong size", at);
        r.regs = spanOf<uint64_t>(data, s.size);
        break;
      case STROBE_SEC_STACK:
        r.stack = {data, s.size};
        break;
      case STROBE_SEC_RUNTIME:
        if (!whole(sizeof(strobe_runtime_frame))) {
          return corrupt("a runtime stack of a partial frame", at);
        }
        r.runtime_frames = spanOf<strobe_runtime_frame>(data, s.size);
        break;
      default:
        break;  // a later program's section: skipped
    }
    at += padded;
  }
  return r;
}

}  // namespace strobe::bpf
