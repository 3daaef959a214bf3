// Decoding the records of strobe's BPF program (sample_record.h) into a
// plain struct whose spans point into the record's bytes. The decoder
// trusts nothing: sizes, counts and section bounds are checked, a section
// kind it does not know is skipped, and a record that does not fit is a
// kCorrupt Error naming what did not fit and where.
// Owns: nothing (a Record borrows the bytes it was decoded from).
// Thread safety: pure functions. Async-signal safety: decodeRecord
// allocates only on error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.hpp"
#include "bpf/sample_record.h"

namespace strobe::bpf {

struct Record {
  uint16_t kind = 0;   // STROBE_REC_*
  uint16_t flags = 0;  // STROBE_F_*
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0, cpu = 0;
  uint64_t period = 0;
  uint64_t ip = 0;
  std::span<const uint64_t> kernel_stack;                 // leaf first
  std::span<const uint64_t> user_stack;                   // leaf first (addresses)
  std::span<const strobe_build_id_frame> build_id_stack;  // leaf first
  std::span<const uint64_t> regs;  // STROBE_REGS_MASK order; empty when not read
  std::span<const uint8_t> stack;  // user stack bytes from regs' sp up
  std::span<const strobe_runtime_frame> runtime_frames;
  bool has_user_stack = false;  // a user stack section (either kind) was present
};

// The record time at the start of `bytes` (0 when too short), for ordering.
uint64_t recordTime(const uint8_t* bytes, size_t size);

// `bytes` must be 8-byte aligned (the ring's records are).
Result<Record> decodeRecord(const uint8_t* bytes, size_t size);

}  // namespace strobe::bpf
