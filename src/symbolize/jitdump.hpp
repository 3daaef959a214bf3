// The jitdump format (Linux tools/perf/Documentation/jitdump-specification.txt):
// a file jit-PID.dump in which a JIT runtime describes the code it
// generates, appended as it runs. A 40-byte header (magic "JiTD" as the
// writer's uint32 0x4A695444, byte-swapped when the writer's endianness
// differs), then records, each a 16-byte prefix (id, total_size, timestamp)
// and its payload: CODE_LOAD (0: pid, tid, vma, code_addr, code_size,
// code_index, NUL-terminated name, the code bytes), CODE_MOVE (1),
// CODE_DEBUG_INFO (2: code_addr, nr_entry, entries of address, line,
// discriminator and NUL-terminated file; it precedes the load it
// describes), CODE_CLOSE (3), CODE_UNWINDING_INFO (4). Unknown ids are
// skipped by their size, as perf does.
//
// Parsing: the bytes are untrusted. Every size and count is checked against
// what is there; nothing reads past the end, nothing crashes. A record cut
// off at the end of the bytes is kIncomplete (a runtime may be writing it:
// read again later), one whose size cannot be right is kCorrupt (stop
// reading the file: what follows cannot be found), and one whose size is
// sound but whose content is not is kOk with JitdumpRecord::damaged saying
// why (skip it, read on). Views in the results point into the bytes parsed.
//
// Writing: append*() build records for libstrobe's writer (one place for the
// layout). Writers use the host's byte order.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::symbolize {

inline constexpr uint32_t kJitdumpMagic = 0x4A695444;  // "JiTD"
inline constexpr size_t kJitdumpHeaderSize = 40;
inline constexpr size_t kJitdumpPrefixSize = 16;
inline constexpr uint64_t kJitdumpArchTimestamp = 1;  // header flag: TSC, not CLOCK_MONOTONIC

enum class JitdumpRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeMove = 1,
  kDebugInfo = 2,
  kClose = 3,
  kUnwindingInfo = 4,
};

struct JitdumpHeader {
  uint32_t version = 0;
  uint32_t header_size = 0;  // total_size: records start here
  uint32_t elf_mach = 0;
  uint32_t pid = 0;
  uint64_t timestamp = 0;
  uint64_t flags = 0;
  bool swapped = false;  // written with the other byte order
};

struct JitdumpLine {
  uint64_t address = 0;  // process address where the line starts
  uint32_t line = 0;
  uint32_t discriminator = 0;
  std::string_view file;
};

struct JitdumpRecord {
  uint32_t id = 0;  // a JitdumpRecordId, or an unknown one (skipped)
  uint64_t timestamp = 0;
  size_t size = 0;  // total_size: the next record starts this far on
  // CODE_LOAD and CODE_MOVE
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t vma = 0;            // load: where the code runs; move: the new address
  uint64_t code_addr = 0;      // load: the code's address; move: the old address; debug info
  uint64_t new_code_addr = 0;  // move
  uint64_t code_size = 0;
  uint64_t code_index = 0;
  std::string_view name;           // load
  std::span<const uint8_t> code;   // load: the code bytes (code_size of them)
  std::vector<JitdumpLine> lines;  // debug info
  // Not "": the record's size is sound (the next record is found) but its
  // content is not (fields that do not fit in it, a name without its NUL,
  // debug entries that do not fill it or name files with control
  // characters): skip it. The fields above are then not to be used.
  std::string damaged;
};

enum class JitdumpStatus { kOk, kIncomplete, kCorrupt };

// The header at the start of `bytes`; `problem` says what is wrong when not kOk.
JitdumpStatus parseJitdumpHeader(std::span<const uint8_t> bytes, JitdumpHeader& out,
                                 std::string& problem);

// The record at the start of `bytes` (after the header, or after the
// previous record). kOk fills `out` (out.size bytes were used).
JitdumpStatus parseJitdumpRecord(std::span<const uint8_t> bytes, bool swapped, JitdumpRecord& out,
                                 std::string& problem);

// A whole file at once (tests, the fuzz target, offline reads): the header
// and every complete record. `problem` is "" for a clean file, else one line:
// why reading stopped (a corrupt record, or one cut off at the end).
struct JitdumpFile {
  JitdumpHeader header;
  std::vector<JitdumpRecord> records;
  std::string problem;
};
JitdumpFile parseJitdump(std::span<const uint8_t> bytes);

// Records, appended to `out` in the host's byte order.
void appendJitdumpHeader(std::string& out, uint32_t pid, uint64_t timestamp);
void appendJitdumpLoad(std::string& out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                       uint64_t address, std::span<const uint8_t> code, uint64_t code_index,
                       std::string_view name);
void appendJitdumpMove(std::string& out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                       uint64_t old_address, uint64_t new_address, uint64_t code_size,
                       uint64_t code_index);
void appendJitdumpDebugInfo(std::string& out, uint64_t timestamp, uint64_t code_address,
                            std::span<const JitdumpLine> lines);
void appendJitdumpClose(std::string& out, uint64_t timestamp);

}  // namespace strobe::symbolize
