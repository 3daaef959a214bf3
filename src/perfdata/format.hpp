// The perf.data file format's own layout (Linux tools/perf: header.h,
// perf.data-file-format.txt, lib/perf/include/perf/event.h), beside the
// kernel's records (linux/perf_event.h, decoded by src/perf): the file
// header, the feature ids, the record types perf itself writes into the
// data stream (64 and above), and the build-id entry shared by the
// HEADER_BUILD_ID feature and PERF_RECORD_HEADER_BUILD_ID.
// Owns: nothing; constants and plain structs. Thread safety: constants.
// All multi-byte fields are in the byte order of the machine that wrote the
// file; strobe reads files of its own byte order (see kMagicSwapped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace strobe::perfdata {

// "PERFILE2" read as a little-endian u64, and byte-swapped (a file written
// on a machine of the other byte order).
inline constexpr uint64_t kMagic = 0x32454c4946524550ULL;
inline constexpr uint64_t kMagicSwapped = 0x50455246494c4532ULL;

// A u64 of the file at any alignment (records in a file's stream need not
// sit at multiples of 8).
inline uint64_t u64At(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct FileSection {
  uint64_t offset = 0;  // from the start of the file
  uint64_t size = 0;
};

// The header of a seekable perf.data file.
struct FileHeader {
  uint64_t magic = 0;
  uint64_t size = 0;       // of this header (104)
  uint64_t attr_size = 0;  // of one entry of `attrs`: a perf_event_attr + a FileSection of ids
  FileSection attrs;
  FileSection data;
  FileSection event_types;    // unused since 2013
  uint64_t features[4] = {};  // a 256-bit set of the feature sections that follow the data
};
static_assert(sizeof(FileHeader) == 104);

// A pipe's header (`perf record -o -`): magic and size (16) only; attrs
// and features come as records in the stream.
struct PipeHeader {
  uint64_t magic = 0;
  uint64_t size = 0;
};

// Feature sections (header.h, enum HEADER_*).
enum Feature : uint32_t {
  kFeatTracingData = 1,
  kFeatBuildId = 2,
  kFeatHostname = 3,
  kFeatOsRelease = 4,
  kFeatVersion = 5,
  kFeatArch = 6,
  kFeatNrCpus = 7,
  kFeatCpuDesc = 8,
  kFeatCpuId = 9,
  kFeatTotalMem = 10,
  kFeatCmdline = 11,
  kFeatEventDesc = 12,
  kFeatSampleTime = 21,
  kFeatClockId = 23,
  kFeatCompressed = 27,
  kFeatClockData = 29,
  kFeatBits = 256,
};

// Record types perf writes besides the kernel's (enum perf_user_event_type).
enum UserRecord : uint32_t {
  kRecordHeaderAttr = 64,
  kRecordHeaderEventType = 65,
  kRecordHeaderTracingData = 66,  // followed by `size` bytes outside the record (pipe mode)
  kRecordHeaderBuildId = 67,
  kRecordFinishedRound = 68,
  kRecordIdIndex = 69,
  kRecordAuxtraceInfo = 70,
  kRecordAuxtrace = 71,  // followed by `size` bytes of AUX data outside the record
  kRecordAuxtraceError = 72,
  kRecordThreadMap = 73,
  kRecordCpuMap = 74,
  kRecordStatConfig = 75,
  kRecordStat = 76,
  kRecordStatRound = 77,
  kRecordEventUpdate = 78,
  kRecordTimeConv = 79,
  kRecordHeaderFeature = 80,
  kRecordCompressed = 81,  // header, then zstd data to the record's end
  kRecordFinishedInit = 82,
  kRecordCompressed2 = 83,  // header, u64 data_size, then data_size bytes of zstd data
};

// PERF_RECORD_EVENT_UPDATE's kinds (only the name is read).
inline constexpr uint64_t kEventUpdateName = 2;

// HEADER_COMPRESSED's type: zstd.
inline constexpr uint32_t kCompressionZstd = 1;

// A build-id entry: perf_event_header, pid (-1: the kernel), 24 bytes of
// build-id (the id's size in byte 20 when misc has kBuildIdSizeMisc, else
// 20), then the NUL-padded file name to the entry's end.
inline constexpr uint16_t kBuildIdSizeMisc = 1 << 15;
inline constexpr size_t kBuildIdEntryFixed = 8 + 4 + 24;

}  // namespace strobe::perfdata
