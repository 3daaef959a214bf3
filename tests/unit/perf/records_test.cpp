// SAMPLE and MMAP/MMAP2 decoding from crafted bytes.
#include "perf/records.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "record_builder.hpp"

namespace strobe::perf {
namespace {

using testing::Built;
using testing::decode;
using testing::kSampleType;
using testing::RecordBuilder;
using testing::sample;

TEST(PerfRecords, DecodesSampleWithCallchain) {
  Built b = sample();
  auto rec = decode(b);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& s = std::get<SampleRecord>(*rec);
  EXPECT_EQ(s.ip, 0x401234u);
  EXPECT_EQ(s.pid, 100u);
  EXPECT_EQ(s.tid, 101u);
  EXPECT_EQ(s.time, 5'000'000'000u);
  EXPECT_EQ(s.cpu, 3u);
  EXPECT_EQ(s.period, 10'101'010u);
  ASSERT_EQ(s.callchain_len, 3u);
  EXPECT_EQ(s.callchain[0], kContextUser);
  EXPECT_EQ(s.callchain[2], 0x401500u);
  EXPECT_EQ(s.callchain, reinterpret_cast<const uint64_t*>(b.bytes() + 56));
  EXPECT_EQ(recordTime(*rec), 5'000'000'000u);
}

TEST(PerfRecords, DecodesSampleWithoutCallchainAndWithEveryPrefixField) {
  const uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                        PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                        PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  Built b = RecordBuilder(PERF_RECORD_SAMPLE)
                .u64(77)  // identifier
                .u64(0xabc)
                .u32(1)
                .u32(2)
                .u64(999)
                .u64(0xdead)  // addr
                .u64(77)      // id
                .u64(78)      // stream id
                .u32(1)
                .u32(0)
                .u64(42)
                .finish();
  auto rec = decode(b, type);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& s = std::get<SampleRecord>(*rec);
  EXPECT_EQ(s.ip, 0xabcu);
  EXPECT_EQ(s.tid, 2u);
  EXPECT_EQ(s.time, 999u);
  EXPECT_EQ(s.cpu, 1u);
  EXPECT_EQ(s.period, 42u);
  EXPECT_EQ(s.callchain, nullptr);
  EXPECT_EQ(s.callchain_len, 0u);
}

TEST(PerfRecords, SampleCallchainLongerThanRecordIsCorrupt) {
  Built b = RecordBuilder(PERF_RECORD_SAMPLE)
                .u64(1)
                .u32(1)
                .u32(1)
                .u64(1)
                .u32(0)
                .u32(0)
                .u64(1)
                .u64(1'000'000)  // nr, but no entries follow
                .finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::kCorrupt);
  EXPECT_EQ(rec.error().message,
            "truncated SAMPLE record: the field at offset 56 does not fit in its 56 bytes");
}

TEST(PerfRecords, SampleCutMidFieldIsCorrupt) {
  Built b = RecordBuilder(PERF_RECORD_SAMPLE).u64(1).u32(7).finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().message,
            "truncated SAMPLE record: the field at offset 20 does not fit in its 20 bytes");
}

TEST(PerfRecords, SampleReadWithCallchainIsUnsupported) {
  auto rec = decode(sample(), kSampleType | PERF_SAMPLE_READ);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::kUnsupported);
}

TEST(PerfRecords, DecodesMmap2WithBuildIdAndTrailer) {
  uint8_t id[20];
  for (int i = 0; i < 20; ++i) id[i] = static_cast<uint8_t>(0xa0 + i);
  Built b = RecordBuilder(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID)
                .u32(200)
                .u32(201)
                .u64(0x7f0000001000)
                .u64(0x2000)
                .u64(0x1000)
                .u8(20)
                .u8(0)
                .u16(0)
                .raw(id, 20)
                .u32(5)  // prot
                .u32(2)  // flags
                .str("/usr/lib/x86_64-linux-gnu/libc.so.6")
                .sampleId(200, 202, 123456789, 1)
                .finish();
  auto rec = decode(b);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& m = std::get<Mmap2Record>(*rec);
  EXPECT_EQ(m.pid, 200u);
  EXPECT_EQ(m.tid, 201u);
  EXPECT_EQ(m.addr, 0x7f0000001000u);
  EXPECT_EQ(m.len, 0x2000u);
  EXPECT_EQ(m.pgoff, 0x1000u);
  EXPECT_EQ(m.prot, 5u);
  EXPECT_EQ(m.flags, 2u);
  EXPECT_EQ(m.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_EQ(m.build_id_size, 20);
  EXPECT_EQ(0, std::memcmp(m.build_id, id, 20));
  EXPECT_EQ(m.time, 123456789u);
}

TEST(PerfRecords, DecodesMmap2WithDeviceAndInode) {
  Built b = RecordBuilder(PERF_RECORD_MMAP2)
                .u32(1)
                .u32(1)
                .u64(0x400000)
                .u64(0x1000)
                .u64(0)
                .u32(8)
                .u32(1)
                .u64(4242)
                .u64(7)  // maj, min, ino, ino_generation
                .u32(5)
                .u32(2)
                .str("/bin/true")
                .sampleId(1, 1, 55, 0)
                .finish();
  auto rec = decode(b);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& m = std::get<Mmap2Record>(*rec);
  EXPECT_EQ(m.build_id_size, 0);
  EXPECT_EQ(m.maj, 8u);
  EXPECT_EQ(m.min, 1u);
  EXPECT_EQ(m.ino, 4242u);
  EXPECT_EQ(m.filename, "/bin/true");
  EXPECT_EQ(m.time, 55u);
}

TEST(PerfRecords, DecodesPlainMmapIntoMmap2Record) {
  Built b = RecordBuilder(PERF_RECORD_MMAP)
                .u32(9)
                .u32(9)
                .u64(0x1000)
                .u64(0x3000)
                .u64(0x200)
                .str("[vdso]")
                .sampleId(9, 9, 66, 0)
                .finish();
  auto rec = decode(b);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& m = std::get<Mmap2Record>(*rec);
  EXPECT_EQ(m.addr, 0x1000u);
  EXPECT_EQ(m.len, 0x3000u);
  EXPECT_EQ(m.pgoff, 0x200u);
  EXPECT_EQ(m.filename, "[vdso]");
  EXPECT_EQ(m.build_id_size, 0);
  EXPECT_EQ(m.time, 66u);
}

TEST(PerfRecords, Mmap2BuildIdSizeOver20IsCorrupt) {
  Built b = RecordBuilder(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID)
                .u32(1)
                .u32(1)
                .u64(0)
                .u64(0)
                .u64(0)
                .u8(21)
                .u8(0)
                .u16(0)
                .raw(std::string(20, 'x').data(), 20)
                .u32(0)
                .u32(0)
                .str("x")
                .sampleId(1, 1, 1, 0)
                .finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::kCorrupt);
  EXPECT_EQ(rec.error().message, "corrupt MMAP2 record: build_id_size 21 at offset 40 exceeds 20");
}

TEST(PerfRecords, Mmap2CutBeforeFilenameIsCorrupt) {
  // The body ends after pgoff: the maj/min/ino union at offset 40 is missing.
  Built b = RecordBuilder(PERF_RECORD_MMAP2)
                .u32(1)
                .u32(1)
                .u64(0)
                .u64(0)
                .u64(0)
                .sampleId(1, 1, 1, 0)
                .finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().message,
            "truncated MMAP2 record: the field at offset 40 does not fit in its 64 bytes");
}

}  // namespace
}  // namespace strobe::perf
