// Side-band records (COMM, FORK/EXIT, LOST, THROTTLE), the sample_id trailer,
// and malformed input.
#include "perf/records.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "record_builder.hpp"

namespace strobe::perf {
namespace {

using testing::Built;
using testing::decode;
using testing::kSampleType;
using testing::RecordBuilder;
using testing::sample;

TEST(PerfRecords, DecodesCommWithExecFlag) {
  Built b = RecordBuilder(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC)
                .u32(300)
                .u32(300)
                .str("worker")
                .sampleId(300, 300, 77, 0)
                .finish();
  auto rec = decode(b);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& c = std::get<CommRecord>(*rec);
  EXPECT_EQ(c.pid, 300u);
  EXPECT_EQ(c.comm, "worker");
  EXPECT_TRUE(c.exec);
  EXPECT_EQ(c.time, 77u);

  Built plain =
      RecordBuilder(PERF_RECORD_COMM).u32(1).u32(2).str("abcdefg").sampleId(1, 2, 3, 0).finish();
  auto rec2 = decode(plain);
  ASSERT_TRUE(rec2.ok());
  EXPECT_FALSE(std::get<CommRecord>(*rec2).exec);
  EXPECT_EQ(std::get<CommRecord>(*rec2).comm, "abcdefg");  // exactly 8 bytes with its NUL
}

TEST(PerfRecords, DecodesForkAndExit) {
  Built fork = RecordBuilder(PERF_RECORD_FORK)
                   .u32(11)
                   .u32(10)
                   .u32(12)
                   .u32(10)
                   .u64(1000)
                   .sampleId(11, 12, 1000, 0)
                   .finish();
  auto rec = decode(fork);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  const auto& t = std::get<TaskRecord>(*rec);
  EXPECT_TRUE(t.is_fork);
  EXPECT_EQ(t.pid, 11u);
  EXPECT_EQ(t.ppid, 10u);
  EXPECT_EQ(t.tid, 12u);
  EXPECT_EQ(t.ptid, 10u);
  EXPECT_EQ(t.time, 1000u);

  Built exit = RecordBuilder(PERF_RECORD_EXIT)
                   .u32(11)
                   .u32(10)
                   .u32(12)
                   .u32(10)
                   .u64(2000)
                   .sampleId(11, 12, 2000, 0)
                   .finish();
  auto rec2 = decode(exit);
  ASSERT_TRUE(rec2.ok());
  EXPECT_FALSE(std::get<TaskRecord>(*rec2).is_fork);
  EXPECT_EQ(std::get<TaskRecord>(*rec2).time, 2000u);
}

TEST(PerfRecords, ForkWithoutTimeIsCorrupt) {
  Built b =
      RecordBuilder(PERF_RECORD_FORK).u32(1).u32(1).u32(1).u32(1).sampleId(1, 1, 1, 0).finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().message,
            "truncated FORK record: the field at offset 24 does not fit in its 48 bytes");
}

TEST(PerfRecords, DecodesLostAndLostSamples) {
  Built lost = RecordBuilder(PERF_RECORD_LOST).u64(5).u64(17).sampleId(0, 0, 444, 0).finish();
  auto rec = decode(lost);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(std::get<LostRecord>(*rec).id, 5u);
  EXPECT_EQ(std::get<LostRecord>(*rec).lost, 17u);
  EXPECT_EQ(std::get<LostRecord>(*rec).time, 444u);

  Built ls = RecordBuilder(PERF_RECORD_LOST_SAMPLES).u64(3).sampleId(0, 0, 445, 0).finish();
  auto rec2 = decode(ls);
  ASSERT_TRUE(rec2.ok());
  EXPECT_EQ(std::get<LostRecord>(*rec2).lost, 3u);
  EXPECT_EQ(std::get<LostRecord>(*rec2).time, 445u);
}

TEST(PerfRecords, DecodesThrottleAndUnthrottle) {
  Built t =
      RecordBuilder(PERF_RECORD_THROTTLE).u64(900).u64(17).u64(1).sampleId(5, 6, 900, 0).finish();
  auto rec = decode(t);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_TRUE(std::get<ThrottleRecord>(*rec).throttle);
  EXPECT_EQ(std::get<ThrottleRecord>(*rec).time, 900u);
  EXPECT_EQ(std::get<ThrottleRecord>(*rec).id, 17u);  // the throttled event
  EXPECT_EQ(std::get<ThrottleRecord>(*rec).tid, 6u);  // the thread it was sampling
  EXPECT_EQ(std::get<ThrottleRecord>(*rec).pid, 5u);  // ... and its process (per-CPU events)

  Built u =
      RecordBuilder(PERF_RECORD_UNTHROTTLE).u64(901).u64(1).u64(1).sampleId(0, 0, 901, 0).finish();
  auto rec2 = decode(u);
  ASSERT_TRUE(rec2.ok());
  EXPECT_FALSE(std::get<ThrottleRecord>(*rec2).throttle);
}

TEST(PerfRecords, TrailerFollowsSampleTypeOrder) {
  // TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
  const uint64_t type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                        PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
                        PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;  // not in the trailer
  EXPECT_EQ(sampleIdSize(type), 48u);
  Built b = RecordBuilder(PERF_RECORD_LOST)
                .u64(1)
                .u64(2)
                .u32(5)
                .u32(6)
                .u64(31337)
                .u64(1)
                .u64(2)
                .u32(0)
                .u32(0)
                .u64(1)
                .finish();
  auto rec = decode(b, type);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(std::get<LostRecord>(*rec).time, 31337u);

  // Without TIME in sample_type, the same body has no time.
  Built c = RecordBuilder(PERF_RECORD_LOST).u64(1).u64(2).u32(5).u32(6).finish();
  auto rec2 = decode(c, PERF_SAMPLE_TID);
  ASSERT_TRUE(rec2.ok());
  EXPECT_EQ(std::get<LostRecord>(*rec2).time, 0u);
}

TEST(PerfRecords, RecordShorterThanTrailerIsCorrupt) {
  Built b = RecordBuilder(PERF_RECORD_COMM).u64(0).finish();
  auto rec = decode(b);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().message,
            "truncated COMM record: the field at offset 8 does not fit in its 16 bytes");
}

TEST(PerfRecords, BadSizesAreCorrupt) {
  Built b = sample();
  auto short_rec = decodeRecord(b.hdr(), b.bytes(), 4, kSampleType);
  ASSERT_FALSE(short_rec.ok());
  EXPECT_EQ(short_rec.error().message,
            "truncated perf record: 4 bytes cannot hold its 8-byte header");
  auto mismatch = decodeRecord(b.hdr(), b.bytes(), b.size - 8, kSampleType);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().message,
            "corrupt SAMPLE record: its header says 80 bytes, but 72 were given");
}

TEST(PerfRecords, DecodesSwitchAndCpuWideSwitch) {
  // A per-task event's SWITCH: the header and the sample_id trailer only.
  Built out = RecordBuilder(PERF_RECORD_SWITCH,
                            PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                  .sampleId(10, 11, 7'000, 2)
                  .finish();
  auto rec = decode(out);
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  const auto& w = std::get<SwitchRecord>(*rec);
  EXPECT_EQ(w.pid, 10u);
  EXPECT_EQ(w.tid, 11u);
  EXPECT_EQ(w.time, 7'000u);
  EXPECT_EQ(w.cpu, 2u);
  EXPECT_TRUE(w.out);
  EXPECT_TRUE(w.preempted);
  EXPECT_EQ(recordTime(*rec), 7'000u);
  // A per-CPU event's SWITCH_CPU_WIDE: the other task, then the trailer.
  Built in = RecordBuilder(PERF_RECORD_SWITCH_CPU_WIDE, 0)
                 .u32(20)
                 .u32(21)
                 .sampleId(30, 31, 8'000, 1)
                 .finish();
  rec = decode(in);
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  const auto& c = std::get<SwitchRecord>(*rec);
  EXPECT_EQ(c.tid, 31u);  // the thread switching in
  EXPECT_FALSE(c.out);
  EXPECT_FALSE(c.preempted);
  EXPECT_EQ(c.next_prev_pid, 20u);
  EXPECT_EQ(c.next_prev_tid, 21u);
  // Cut short: the trailer does not fit.
  Built cut = RecordBuilder(PERF_RECORD_SWITCH_CPU_WIDE, 0).u32(20).u32(21).u64(1).finish();
  rec = decode(cut);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::kCorrupt);
}

TEST(PerfRecords, UnknownTypesAreMonostate) {
  for (uint32_t type : {uint32_t{PERF_RECORD_KSYMBOL}, uint32_t{PERF_RECORD_CGROUP}, 9999u}) {
    Built b = RecordBuilder(type).u64(1).finish();
    auto rec = decode(b);
    ASSERT_TRUE(rec.ok());
    EXPECT_TRUE(std::holds_alternative<std::monostate>(*rec));
    EXPECT_EQ(recordTime(*rec), 0u);
  }
}

TEST(PerfRecords, EveryTruncationAndRandomBytesFailCleanly) {
  std::vector<Built> all = {
      sample(),
      RecordBuilder(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID)
          .u32(1)
          .u32(1)
          .u64(0)
          .u64(0)
          .u64(0)
          .u8(20)
          .u8(0)
          .u16(0)
          .raw(std::string(20, 'x').data(), 20)
          .u32(0)
          .u32(0)
          .str("/lib/a.so")
          .sampleId(1, 1, 1, 0)
          .finish(),
      RecordBuilder(PERF_RECORD_COMM).u32(1).u32(1).str("c").sampleId(1, 1, 1, 0).finish(),
      RecordBuilder(PERF_RECORD_EXIT)
          .u32(1)
          .u32(1)
          .u32(1)
          .u32(1)
          .u64(1)
          .sampleId(1, 1, 1, 0)
          .finish(),
      RecordBuilder(PERF_RECORD_THROTTLE).u64(1).u64(1).u64(1).sampleId(1, 1, 1, 0).finish(),
  };
  for (const Built& full : all) {
    for (size_t cut = 8; cut < full.size; ++cut) {
      Built b = full;
      auto sz = static_cast<uint16_t>(cut);
      std::memcpy(reinterpret_cast<uint8_t*>(b.words.data()) + 6, &sz, 2);
      auto rec = decodeRecord(b.hdr(), b.bytes(), cut, kSampleType);
      // A shorter record may still decode (a shorter name); it must never crash.
      if (!rec.ok()) {
        EXPECT_EQ(rec.error().kind, ErrorKind::kCorrupt) << rec.error().message;
      }
    }
  }
  std::mt19937_64 rng(7);
  std::vector<uint64_t> words(64);
  for (int i = 0; i < 20000; ++i) {
    for (auto& w : words) w = rng();
    auto* hdr = reinterpret_cast<perf_event_header*>(words.data());
    hdr->type = static_cast<uint32_t>(rng() % 20);
    hdr->size = static_cast<uint16_t>(8 + rng() % (words.size() * 8 - 8));
    auto rec =
        decodeRecord(hdr, reinterpret_cast<const uint8_t*>(words.data()), hdr->size, kSampleType);
    (void)rec;
  }
}

TEST(PerfRecords, ContextMarkers) {
  EXPECT_TRUE(isContextMarker(kContextUser));
  EXPECT_TRUE(isContextMarker(kContextKernel));
  EXPECT_TRUE(isContextMarker(static_cast<uint64_t>(-4095)));
  EXPECT_FALSE(isContextMarker(static_cast<uint64_t>(-4096)));
  EXPECT_FALSE(isContextMarker(0x7fff12345678));
  EXPECT_EQ(kContextUser, static_cast<uint64_t>(-512));
}

}  // namespace
}  // namespace strobe::perf
