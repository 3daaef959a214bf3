// The span channel's shared memory, as both sides see it (docs/FORMAT.md,
// "The span channel", is the prose of this file). One channel per process:
// a memfd named "strobe-channel" that the process maps shared and that a
// reader maps too (strobe record, after receiving the descriptor or opening
// /proc/PID/fd/N; or the process's own libstrobe session).
//
//   [Header: 4 KiB][name offsets: u32 x kMaxNames][name bytes][slot 0][slot 1]...
//
// A slot belongs to one thread at a time: a 256-byte SlotHeader (its tid and
// role, the ring's head and one tail per reader, drop counters) followed by a
// ring of records. The thread is the ring's only writer; each reader owns its
// tail. Records are 8-byte aligned, start with a RecordHeader, never wrap
// around the ring's end (a kPad record fills the rest) and are published by
// the release store of `head`.
//
// Readers: kReaders slots (the process's own session, one external strobe).
// `gate` holds the mask of active readers (low 32 bits) and a generation that
// grows when a reader joins while none is active (high 32 bits): the
// program's fast path loads it once and records nothing while the mask is
// 0; a thread's open spans are kept while the generation stays its own.
//
// Values are native-endian and native-aligned (both sides run on the same
// machine). Every atomic here is lock-free and address-free, so it works
// across processes.
// Thread safety: see each field. Not async-signal-safe to write (the
// producer's slow paths allocate); reading is.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace strobe::channel {

inline constexpr char kMagic[8] = {'S', 'T', 'R', 'B', 'C', 'H', 'A', 'N'};
inline constexpr uint32_t kVersion = 1;
inline constexpr const char* kMemfdName = "strobe-channel";
// How /proc/PID/fd/N links to a channel.
inline constexpr const char* kMemfdLink = "/memfd:strobe-channel (deleted)";

inline constexpr uint32_t kHeaderBytes = 4096;
inline constexpr uint32_t kSlotHeaderBytes = 256;
inline constexpr uint32_t kSlotCount = 256;         // threads with a ring at a time
inline constexpr uint32_t kRingBytes = 512 * 1024;  // 16,384 spans per thread between drains
inline constexpr uint32_t kMaxNames = 4096;         // distinct span names
inline constexpr uint32_t kNameBytes = 256 * 1024;  // their text
inline constexpr uint32_t kMaxNameLength = 255;     // longer names are cut
inline constexpr uint32_t kRoleBytes = 64;          // role text, NUL-terminated
inline constexpr uint32_t kNoName = UINT32_MAX;     // the name table was full

inline constexpr int kReaders = 2;
inline constexpr int kReaderInProcess = 0;  // the process's own libstrobe session
inline constexpr int kReaderExternal = 1;   // strobe record (launch or -p)
// A reader that has not drained for this long is presumed gone: the program
// stops writing for it the next time a ring is full.
inline constexpr uint64_t kStaleReaderNs = 5'000'000'000;

enum SlotState : uint32_t { kFree = 0, kLive = 1, kRetired = 2 };

struct ReaderState {
  std::atomic<int32_t> pid;  // 0: none
  uint32_t reserved;
  std::atomic<uint64_t> heartbeat_ns;  // CLOCK_MONOTONIC of the reader's last drain
};

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // kHeaderBytes
  uint64_t total_bytes;   // of the whole memfd
  int32_t pid;            // the process that made the channel
  uint32_t slot_count;
  uint32_t slot_bytes;  // kSlotHeaderBytes + ring_bytes
  uint32_t ring_bytes;  // a power of two
  uint64_t names_offset;
  uint64_t slots_offset;
  uint32_t max_names;
  uint32_t name_bytes;
  // Written by readers (join/leave) and by the program (a stale reader out).
  std::atomic<uint64_t> gate;         // offset 64
  std::atomic<uint32_t> slots_used;   // slots ever claimed: readers scan [0, slots_used)
  std::atomic<uint32_t> names_count;  // names published (ids 0 .. count-1)
  std::atomic<uint32_t> names_used;   // bytes of the name area in use
  uint32_t reserved;
  std::atomic<uint64_t> lost_no_slot;  // spans not recorded: every slot was taken
  uint8_t reserved2[32];
  ReaderState readers[kReaders];  // offset 128
};

struct SlotHeader {
  std::atomic<uint32_t> state;  // SlotState
  // Seqlock over tid, role_index and role: odd while the owner writes them.
  std::atomic<uint32_t> seq;
  std::atomic<int32_t> tid;
  std::atomic<int32_t> role_index;  // < 0: no index
  char role[kRoleBytes];            // "" when the thread has no role
  std::atomic<uint64_t> head;       // offset 80: bytes ever written (never reset)
  std::atomic<uint64_t> tail[kReaders];
  std::atomic<uint64_t> dropped;   // records refused because the ring was full
  std::atomic<uint64_t> too_deep;  // spans not recorded: nested deeper than the program keeps
};

// Record kinds. Readers skip kinds they do not know (by `size`).
enum RecordKind : uint16_t {
  kPad = 0,   // fills the ring up to its end; no payload
  kSpan = 1,  // SpanRecord
  kRole = 2,  // RoleRecord
};

struct RecordHeader {
  uint16_t kind;
  uint16_t size;  // bytes of the whole record, a multiple of 8, at least 8
  uint32_t arg;   // kind-specific
};

// A span that ended: [start_ns, end_ns) on CLOCK_MONOTONIC. arg: the name id.
struct SpanRecord {
  RecordHeader h;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t depth;  // 0: outermost
  uint32_t reserved;
};

// The thread set its role. arg: the index as int32_t bits (< 0: none).
struct RoleRecord {
  RecordHeader h;
  char role[kRoleBytes];
};

static_assert(sizeof(Header) <= kHeaderBytes);
static_assert(offsetof(Header, gate) == 64 && offsetof(Header, readers) == 128);
static_assert(sizeof(SlotHeader) <= kSlotHeaderBytes && offsetof(SlotHeader, head) == 80);
static_assert(sizeof(SpanRecord) == 32 && sizeof(RoleRecord) == 72);
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert((kRingBytes & (kRingBytes - 1)) == 0);

inline constexpr uint32_t readerBit(int reader) {
  return 1U << reader;
}
inline constexpr uint32_t gateMask(uint64_t gate) {
  return static_cast<uint32_t>(gate);
}
inline constexpr uint32_t gateGeneration(uint64_t gate) {
  return static_cast<uint32_t>(gate >> 32);
}

// Offsets of the default layout (the one producers make).
inline constexpr uint64_t kNamesOffset = kHeaderBytes;
inline constexpr uint64_t kSlotsOffset =
    (kNamesOffset + uint64_t{kMaxNames} * 4 + kNameBytes + 4095) & ~uint64_t{4095};
inline constexpr uint64_t kTotalBytes =
    kSlotsOffset + uint64_t{kSlotCount} * (kSlotHeaderBytes + kRingBytes);

}  // namespace strobe::channel
