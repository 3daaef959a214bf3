// Test helper: crafts perf records byte by byte, as the kernel lays them out.
// Owns the bytes it builds (8-byte aligned). Thread safety: none.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "perf/records.hpp"

namespace strobe::perf::testing {

// A finished record: 8-byte aligned bytes whose header size is set.
struct Built {
  std::vector<uint64_t> words;
  size_t size = 0;
  [[nodiscard]] const uint8_t* bytes() const {
    return reinterpret_cast<const uint8_t*>(words.data());
  }
  [[nodiscard]] const perf_event_header* hdr() const {
    return reinterpret_cast<const perf_event_header*>(words.data());
  }
};

class RecordBuilder {
 public:
  explicit RecordBuilder(uint32_t type, uint16_t misc = 0) {
    u32(type);
    u16(misc);
    u16(0);  // size, set by finish()
  }
  RecordBuilder& u8(uint8_t v) { return raw(&v, 1); }
  RecordBuilder& u16(uint16_t v) { return raw(&v, 2); }
  RecordBuilder& u32(uint32_t v) { return raw(&v, 4); }
  RecordBuilder& u64(uint64_t v) { return raw(&v, 8); }
  RecordBuilder& raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  // A NUL-terminated string padded to a multiple of 8 bytes, as the kernel does.
  RecordBuilder& str(std::string_view s) {
    raw(s.data(), s.size());
    do {
      u8(0);
    } while (bytes_.size() % 8 != 0);
    return *this;
  }
  // The sample_id trailer for sample_type TID|TIME|CPU.
  RecordBuilder& sampleId(uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu) {
    return u32(pid).u32(tid).u64(time).u32(cpu).u32(0);
  }
  [[nodiscard]] size_t size() const { return bytes_.size(); }

  // Sets the header size (to header_size if nonzero, else the real size).
  [[nodiscard]] Built finish(uint16_t header_size = 0) const {
    std::vector<uint8_t> b = bytes_;
    const uint16_t sz = header_size != 0 ? header_size : static_cast<uint16_t>(b.size());
    std::memcpy(b.data() + 6, &sz, 2);
    Built out;
    out.size = b.size();
    out.words.resize((b.size() + 7) / 8 + 1);
    std::memcpy(out.words.data(), b.data(), b.size());
    return out;
  }

 private:
  std::vector<uint8_t> bytes_;
};

// The sample_type makeAttr uses with a callchain.
inline constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                        PERF_SAMPLE_CALLCHAIN;

inline Result<Record> decode(const Built& b, uint64_t sample_type = kSampleType) {
  return decodeRecord(b.hdr(), b.bytes(), b.size, sample_type);
}

// A user-space sample with a 3-entry callchain (80 bytes).
inline Built sample() {
  return RecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
      .u64(0x401234)       // ip
      .u32(100)            // pid
      .u32(101)            // tid
      .u64(5'000'000'000)  // time
      .u32(3)              // cpu
      .u32(0)              // res
      .u64(10'101'010)     // period
      .u64(3)              // callchain nr
      .u64(kContextUser)   //
      .u64(0x401234)       //
      .u64(0x401500)       //
      .finish();
}

}  // namespace strobe::perf::testing
