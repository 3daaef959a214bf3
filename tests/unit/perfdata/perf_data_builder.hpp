// Test helper: writes perf.data files (and pipe streams) byte by byte, as
// perf record lays them out (tools/perf/util/header.c): the file header,
// the attrs with their ids, the data records, the feature sections; or a
// pipe's header followed by HEADER_ATTR / HEADER_FEATURE records. Records
// are crafted with perf::testing::RecordBuilder.
// Owns the bytes it builds. Thread safety: none.
#pragma once

#include <linux/perf_event.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../perf/record_builder.hpp"
#include "perfdata/format.hpp"

namespace strobe::perfdata::testing {

using perf::testing::Built;
using perf::testing::RecordBuilder;

inline void append(std::vector<uint8_t>& out, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}

inline std::vector<uint8_t> bytesOf(const Built& b) {
  std::vector<uint8_t> v(b.size);
  std::memcpy(v.data(), b.bytes(), b.size);
  return v;
}

// A perf_header_string: u32 length (padded to 8 with the NUL), the bytes.
inline std::vector<uint8_t> headerString(const std::string& s) {
  std::vector<uint8_t> out;
  const auto len = static_cast<uint32_t>((s.size() + 1 + 7) / 8 * 8);
  append(out, &len, 4);
  append(out, s.data(), s.size());
  out.resize(out.size() + (len - s.size()), 0);
  return out;
}

// A build-id entry (HEADER_BUILD_ID's, PERF_RECORD_HEADER_BUILD_ID's).
inline std::vector<uint8_t> buildIdEntry(int32_t pid, const std::vector<uint8_t>& id,
                                         const std::string& path, uint16_t misc) {
  RecordBuilder b(kRecordHeaderBuildId, misc | kBuildIdSizeMisc);
  b.u32(static_cast<uint32_t>(pid));
  uint8_t raw[24] = {};
  std::memcpy(raw, id.data(), id.size());
  raw[20] = static_cast<uint8_t>(id.size());
  b.raw(raw, sizeof raw);
  b.str(path);
  return bytesOf(b.finish());
}

// The attr strobe's tests sample with: cpu-clock at 999 Hz.
inline perf_event_attr cpuClockAttr(uint64_t sample_type) {
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.size = sizeof a;
  a.sample_type = sample_type;
  a.freq = 1;
  a.sample_freq = 999;
  a.sample_id_all = 1;
  a.mmap = 1;
  a.comm = 1;
  a.task = 1;
  return a;
}

class PerfDataBuilder {
 public:
  void addEvent(const perf_event_attr& attr, std::vector<uint64_t> ids) {
    events_.push_back({attr, std::move(ids)});
  }
  void addRecord(const Built& b) { append(data_, b.bytes(), b.size); }
  void addBytes(const std::vector<uint8_t>& b) { data_.insert(data_.end(), b.begin(), b.end()); }
  void finishedRound() { addRecord(RecordBuilder(kRecordFinishedRound).finish()); }
  void addFeature(uint32_t id, std::vector<uint8_t> bytes) { features_[id] = std::move(bytes); }
  void addStringFeature(uint32_t id, const std::string& s) { addFeature(id, headerString(s)); }
  void addCmdline(const std::vector<std::string>& argv) {
    std::vector<uint8_t> f;
    const auto nr = static_cast<uint32_t>(argv.size());
    append(f, &nr, 4);
    for (const std::string& a : argv) {
      std::vector<uint8_t> s = headerString(a);
      f.insert(f.end(), s.begin(), s.end());
    }
    addFeature(kFeatCmdline, std::move(f));
  }

  // The bytes of data records so far, compressed with zstd into
  // COMPRESSED records of at most `piece` bytes each (a record of the
  // stream may straddle two of them), replacing them.
  void compressData(size_t piece, bool version2 = false) {
    std::vector<uint8_t> z(ZSTD_compressBound(data_.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), data_.data(), data_.size(), 1));
    data_.clear();
    for (size_t at = 0; at < z.size(); at += piece) {
      const size_t n = std::min(piece, z.size() - at);
      RecordBuilder b(version2 ? kRecordCompressed2 : kRecordCompressed);
      if (version2) b.u64(n);
      b.raw(z.data() + at, n);
      if (version2) {
        while (b.size() % 8 != 0) b.u8(0);
      }
      addRecord(b.finish());
    }
  }

  // The whole file. data_size_override: what the header says the data's
  // size is (-1: the truth).
  [[nodiscard]] std::vector<uint8_t> file(int64_t data_size_override = -1) const {
    FileHeader h;
    h.magic = kMagic;
    h.size = sizeof h;
    h.attr_size = sizeof(perf_event_attr) + sizeof(FileSection);
    std::vector<uint8_t> out(sizeof h, 0);
    // ids, then attrs, then data, then the feature table and sections.
    std::vector<FileSection> id_sections;
    for (const auto& e : events_) {
      id_sections.push_back({out.size(), e.ids.size() * 8});
      append(out, e.ids.data(), e.ids.size() * 8);
    }
    h.attrs = {out.size(), events_.size() * h.attr_size};
    for (size_t i = 0; i < events_.size(); ++i) {
      append(out, &events_[i].attr, sizeof(perf_event_attr));
      append(out, &id_sections[i], sizeof(FileSection));
    }
    h.data = {out.size(),
              data_size_override >= 0 ? static_cast<uint64_t>(data_size_override) : data_.size()};
    out.insert(out.end(), data_.begin(), data_.end());
    std::vector<FileSection> table;
    uint64_t at = out.size() + features_.size() * sizeof(FileSection);
    for (const auto& [id, bytes] : features_) {
      h.features[id / 64] |= uint64_t{1} << (id % 64);
      table.push_back({at, bytes.size()});
      at += bytes.size();
    }
    for (const FileSection& s : table) append(out, &s, sizeof s);
    for (const auto& [id, bytes] : features_) out.insert(out.end(), bytes.begin(), bytes.end());
    std::memcpy(out.data(), &h, sizeof h);
    return out;
  }

  // A pipe's stream: its header, HEADER_ATTR and HEADER_FEATURE records,
  // then the data records.
  [[nodiscard]] std::vector<uint8_t> pipe() const {
    PipeHeader h{kMagic, sizeof(PipeHeader)};
    std::vector<uint8_t> out;
    append(out, &h, sizeof h);
    for (const auto& e : events_) {
      RecordBuilder b(kRecordHeaderAttr);
      b.raw(&e.attr, sizeof e.attr);
      for (uint64_t id : e.ids) b.u64(id);
      Built r = b.finish();
      append(out, r.bytes(), r.size);
    }
    for (const auto& [id, bytes] : features_) {
      RecordBuilder b(kRecordHeaderFeature);
      b.u64(id);
      b.raw(bytes.data(), bytes.size());
      while (b.size() % 8 != 0) b.u8(0);
      Built r = b.finish();
      append(out, r.bytes(), r.size);
    }
    out.insert(out.end(), data_.begin(), data_.end());
    return out;
  }

 private:
  struct EventEntry {
    perf_event_attr attr;
    std::vector<uint64_t> ids;
  };
  std::vector<EventEntry> events_;
  std::vector<uint8_t> data_;
  std::map<uint32_t, std::vector<uint8_t>> features_;
};

}  // namespace strobe::perfdata::testing
