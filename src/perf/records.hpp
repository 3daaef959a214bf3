// Decoding perf records (linux/perf_event.h, enum perf_event_type) into plain
// structs: SAMPLE, MMAP/MMAP2, COMM, FORK/EXIT, LOST/LOST_SAMPLES,
// THROTTLE/UNTHROTTLE, READ, SWITCH/SWITCH_CPU_WIDE. Every other record type
// decodes to std::monostate.
//
// Owns: nothing. Decoded records borrow from the record bytes:
// SampleRecord::callchain, Mmap2Record::filename and CommRecord::comm point
// into them and are valid only as long as those bytes are (for a ring, the
// drain callback). Records are decoded assuming sample_id_all = 1 (makeAttr
// sets it): non-sample records end in a sample_id trailer laid out by
// sample_type, from which their time (and cpu) come.
// Malformed input never crashes: truncated or inconsistent records give a
// kCorrupt Error naming the record type and the offset that did not fit.
// Thread safety: pure functions. Async-signal safety: decodeRecord allocates
// only on error.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "base/result.hpp"

namespace strobe::perf {

// Callchain context markers: values >= kContextMax are not addresses; they
// say which part (kernel, user, ...) the following entries belong to.
inline constexpr uint64_t kContextHv = static_cast<uint64_t>(PERF_CONTEXT_HV);
inline constexpr uint64_t kContextKernel = static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
inline constexpr uint64_t kContextUser = static_cast<uint64_t>(PERF_CONTEXT_USER);
inline constexpr uint64_t kContextGuest = static_cast<uint64_t>(PERF_CONTEXT_GUEST);
inline constexpr uint64_t kContextGuestKernel = static_cast<uint64_t>(PERF_CONTEXT_GUEST_KERNEL);
inline constexpr uint64_t kContextGuestUser = static_cast<uint64_t>(PERF_CONTEXT_GUEST_USER);
inline constexpr uint64_t kContextMax = static_cast<uint64_t>(PERF_CONTEXT_MAX);  // (u64)-4095

constexpr bool isContextMarker(uint64_t v) {
  return v >= kContextMax;
}

// Whether an address is in the kernel's half of the address space (x86-64
// and arm64 put the kernel at the top).
constexpr bool isKernelAddress(uint64_t v) {
  return (v >> 63) != 0 && !isContextMarker(v);
}

struct SampleRecord {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  uint64_t ip = 0;
  // Leaf first, with the PERF_CONTEXT_* markers as the kernel wrote them.
  // Points into the record bytes; valid only while they are.
  const uint64_t* callchain = nullptr;
  uint64_t callchain_len = 0;
  // PERF_SAMPLE_REGS_USER: regs_count values in increasing bit order of
  // regs_mask (attr.sample_regs_user). regs_abi is PERF_SAMPLE_REGS_ABI_*;
  // ABI_NONE (no user registers, e.g. a kernel thread) leaves regs null.
  uint64_t regs_abi = 0;
  uint64_t regs_mask = 0;
  const uint64_t* regs = nullptr;
  uint32_t regs_count = 0;
  // PERF_SAMPLE_STACK_USER: stack_size (the record's dyn_size) bytes copied
  // from the user stack pointer upwards. Points into the record bytes.
  const uint8_t* stack = nullptr;
  uint64_t stack_size = 0;
};

// PERF_RECORD_MMAP2, and PERF_RECORD_MMAP (prot, flags, ids left 0).
struct Mmap2Record {
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  uint32_t prot = 0, flags = 0;
  std::string_view filename;  // points into the record bytes
  uint8_t build_id[20] = {};
  uint8_t build_id_size = 0;  // 0 when the record carries maj/min/ino instead
  uint32_t maj = 0, min = 0;  // set when build_id_size is 0 (MMAP2 only)
  uint64_t ino = 0, ino_generation = 0;
  uint64_t time = 0;  // from the sample_id trailer
};

struct CommRecord {
  uint32_t pid = 0, tid = 0;
  std::string_view comm;  // points into the record bytes
  bool exec = false;      // PERF_RECORD_MISC_COMM_EXEC: the name changed by exec
  uint64_t time = 0;
};

// PERF_RECORD_FORK (is_fork) and PERF_RECORD_EXIT.
struct TaskRecord {
  bool is_fork = false;
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};

// PERF_RECORD_LOST (id = the event's id) and PERF_RECORD_LOST_SAMPLES (id 0).
struct LostRecord {
  uint64_t id = 0, lost = 0;
  uint64_t time = 0;
};

// PERF_RECORD_THROTTLE (throttle) and PERF_RECORD_UNTHROTTLE.
struct ThrottleRecord {
  bool throttle = false;
  uint64_t time = 0;
  uint64_t id = 0;   // the throttled event's id
  uint32_t tid = 0;  // the thread running (the sample_id trailer)
  uint32_t pid = 0;  // ... and its process
};

// PERF_RECORD_SWITCH (a per-task event) and PERF_RECORD_SWITCH_CPU_WIDE (a
// per-CPU event), from attr.context_switch: the thread of the sample_id
// trailer left its CPU (out) or got one (in).
struct SwitchRecord {
  uint32_t pid = 0, tid = 0;  // the thread switching (the sample_id trailer)
  uint64_t time = 0;
  uint32_t cpu = 0;
  bool out = false;        // PERF_RECORD_MISC_SWITCH_OUT
  bool preempted = false;  // PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: still runnable (4.17+)
  // SWITCH_CPU_WIDE only: the thread switched to (out) or from (in).
  uint32_t next_prev_pid = 0, next_prev_tid = 0;
};

using Record = std::variant<std::monostate, SampleRecord, Mmap2Record, CommRecord, TaskRecord,
                            LostRecord, ThrottleRecord, SwitchRecord>;

// Decodes one record. bytes points at the record (the header included,
// hdr == bytes), size == hdr->size, and bytes must be 8-byte aligned (ring
// records are) so the callchain can be read in place. sample_type is the
// attr.sample_type the event was opened with, and regs_user_mask its
// attr.sample_regs_user (needed with PERF_SAMPLE_REGS_USER). PERF_SAMPLE_READ
// with a callchain, and PERF_SAMPLE_BRANCH_STACK with user registers or
// stack, are not supported (kUnsupported).
Result<Record> decodeRecord(const perf_event_header* hdr, const uint8_t* bytes, size_t size,
                            uint64_t sample_type, uint64_t regs_user_mask = 0);

// The time of a decoded record (0 for monostate).
uint64_t recordTime(const Record& record);

// "SAMPLE", "MMAP2", ... or "type N".
std::string_view recordTypeName(uint32_t type);

// Bytes of the sample_id trailer of non-sample records for this sample_type.
size_t sampleIdSize(uint64_t sample_type);

}  // namespace strobe::perf
