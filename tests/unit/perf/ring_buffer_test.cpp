#include "perf/ring_buffer.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "perf/records.hpp"
#include "record_builder.hpp"

namespace strobe::perf {
namespace {

using testing::Built;
using testing::RecordBuilder;

using testing::kSampleType;

// Plays the kernel: writes records at data_head, wrapping at the end.
struct FakeRing {
  explicit FakeRing(size_t size, uint64_t start = 0)
      : meta(std::make_unique<perf_event_mmap_page>()), data(size / 8) {
    meta->data_head = start;
    meta->data_tail = start;
  }
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(data.data()); }
  size_t size() const { return data.size() * 8; }
  void writeRaw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) bytes()[(meta->data_head + i) % size()] = b[i];
    meta->data_head += n;
  }
  void write(const Built& r) { writeRaw(r.bytes(), r.size); }
  RingBuffer reader() {
    auto r = RingBuffer::overMemory(meta.get(), bytes(), size());
    EXPECT_TRUE(r.ok());
    return std::move(*r);
  }

  std::unique_ptr<perf_event_mmap_page> meta;
  std::vector<uint64_t> data;
};

// A LOST record whose `lost` field carries a sequence number; pad_words
// varies its size.
Built numbered(uint64_t seq, size_t pad_words = 0) {
  RecordBuilder b(PERF_RECORD_LOST);
  b.u64(0).u64(seq);
  for (size_t i = 0; i < pad_words; ++i) b.u64(0);  // pretend body padding
  return b.sampleId(1, 1, seq, 0).finish();
}

uint64_t seqOf(const uint8_t* bytes) {
  uint64_t v;
  std::memcpy(&v, bytes + 16, 8);
  return v;
}

TEST(PerfRingBuffer, DrainsRecordsInOrderAndAdvancesTail) {
  FakeRing fake(256);
  for (uint64_t i = 1; i <= 3; ++i) fake.write(numbered(i));
  RingBuffer ring = fake.reader();
  std::vector<uint64_t> seen;
  size_t n = ring.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
    EXPECT_EQ(hdr->type, uint32_t{PERF_RECORD_LOST});
    EXPECT_EQ(size, hdr->size);
    seen.push_back(seqOf(bytes));
  });
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(fake.meta->data_tail, fake.meta->data_head);
  EXPECT_EQ(ring.pendingBytes(), 0u);
  EXPECT_EQ(ring.drain([](auto, auto, auto) {}), 0u);
}

TEST(PerfRingBuffer, RecordWrappingTheEndArrivesContiguous) {
  // 88-byte sample starting at 200 of a 256-byte ring: 56 bytes at the end,
  // 32 at the start.
  FakeRing fake(256, 200);
  Built s = RecordBuilder(PERF_RECORD_SAMPLE)
                .u64(0x1234)
                .u32(7)
                .u32(8)
                .u64(99)
                .u32(0)
                .u32(0)
                .u64(1000)
                .u64(3)
                .u64(kContextUser)
                .u64(0x1234)
                .u64(0x5678)
                .finish();
  fake.write(s);
  RingBuffer ring = fake.reader();
  int calls = 0;
  ring.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
    ++calls;
    ASSERT_EQ(size, s.size);
    EXPECT_EQ(0, std::memcmp(bytes, s.bytes(), size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes) % 8, 0u);
    auto rec = decodeRecord(hdr, bytes, size, kSampleType);
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    const auto& sample = std::get<SampleRecord>(*rec);
    EXPECT_EQ(sample.tid, 8u);
    ASSERT_EQ(sample.callchain_len, 3u);
    EXPECT_EQ(sample.callchain[2], 0x5678u);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(fake.meta->data_tail, 200u + s.size);
}

TEST(PerfRingBuffer, HeaderSplitAcrossTheEnd) {
  // The 8-byte header itself straddles the end (4 bytes each side).
  FakeRing fake(128, 124);
  fake.write(numbered(42));
  RingBuffer ring = fake.reader();
  std::vector<uint64_t> seen;
  ring.drain([&](auto, const uint8_t* bytes, size_t) { seen.push_back(seqOf(bytes)); });
  EXPECT_EQ(seen, (std::vector<uint64_t>{42}));
  EXPECT_EQ(ring.corruptCount(), 0u);
}

TEST(PerfRingBuffer, SeveralDrainsAcrossManyWraps) {
  FakeRing fake(256);
  RingBuffer ring = fake.reader();
  uint64_t next = 1;
  uint64_t expect = 1;
  for (int round = 0; round < 50; ++round) {
    // Fill at most the space the reader has freed.
    const size_t count = 1 + round % 3;
    for (size_t i = 0; i < count; ++i) fake.write(numbered(next++, (round + i) % 4));
    ASSERT_LE(fake.meta->data_head - fake.meta->data_tail, fake.size());
    const uint64_t head = fake.meta->data_head;
    size_t n = ring.drain([&](auto, const uint8_t* bytes, size_t) {
      EXPECT_EQ(seqOf(bytes), expect);
      ++expect;
    });
    EXPECT_EQ(n, count);
    EXPECT_EQ(fake.meta->data_tail, head);
  }
  EXPECT_EQ(expect, next);
  EXPECT_GT(fake.meta->data_head, 10 * fake.size());  // wrapped many times
  EXPECT_EQ(ring.corruptCount(), 0u);
}

TEST(PerfRingBuffer, CorruptHeaderStopsTheDrain) {
  FakeRing fake(256);
  fake.write(numbered(1));
  const perf_event_header zero{PERF_RECORD_SAMPLE, 0, 0};  // size 0
  fake.writeRaw(&zero, sizeof zero);
  fake.write(numbered(2));  // unreachable: the boundary is lost
  RingBuffer ring = fake.reader();
  std::vector<uint64_t> seen;
  size_t n = ring.drain([&](auto, const uint8_t* bytes, size_t) { seen.push_back(seqOf(bytes)); });
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{1}));
  EXPECT_EQ(ring.corruptCount(), 1u);
  EXPECT_EQ(fake.meta->data_tail, fake.meta->data_head);  // the rest is discarded

  // Records written afterwards drain normally.
  fake.write(numbered(3));
  seen.clear();
  EXPECT_EQ(ring.drain([&](auto, const uint8_t* bytes, size_t) { seen.push_back(seqOf(bytes)); }),
            1u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{3}));
}

TEST(PerfRingBuffer, HeaderLargerThanWrittenDataIsCorrupt) {
  FakeRing fake(256);
  const perf_event_header big{PERF_RECORD_SAMPLE, 0, 4000};  // > data size
  fake.writeRaw(&big, sizeof big);
  fake.writeRaw(std::string(24, '\0').data(), 24);
  RingBuffer ring = fake.reader();
  EXPECT_EQ(ring.drain([](auto, auto, auto) { ADD_FAILURE(); }), 0u);
  EXPECT_EQ(ring.corruptCount(), 1u);
  EXPECT_EQ(fake.meta->data_tail, fake.meta->data_head);
}

TEST(PerfRingBuffer, HeadFurtherThanTheRingIsCorrupt) {
  FakeRing fake(256);
  fake.meta->data_head = 1000;  // more unread bytes than the ring holds
  RingBuffer ring = fake.reader();
  EXPECT_EQ(ring.drain([](auto, auto, auto) { ADD_FAILURE(); }), 0u);
  EXPECT_EQ(ring.corruptCount(), 1u);
  EXPECT_EQ(fake.meta->data_tail, 1000u);
}

// Found by fuzz/perf_records_fuzz.cpp: a record size that is not a
// multiple of 8 left the next record misaligned for the decoder, which
// reads its words in place.
TEST(PerfRingBuffer, SizeNotAMultipleOf8IsCorrupt) {
  FakeRing fake(256);
  fake.write(numbered(1));
  const perf_event_header odd{PERF_RECORD_SAMPLE, 0, 12};
  fake.writeRaw(&odd, sizeof odd);
  fake.writeRaw(std::string(4, '\0').data(), 4);
  fake.write(numbered(2));
  fake.writeRaw(std::string(4, '\0').data(), 4);  // back to a multiple of 8
  RingBuffer ring = fake.reader();
  std::vector<uint64_t> seen;
  size_t n = ring.drain([&](auto, const uint8_t* bytes, size_t) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes) % 8, 0u);
    seen.push_back(seqOf(bytes));
  });
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{1}));
  EXPECT_EQ(ring.corruptCount(), 1u);
  EXPECT_EQ(fake.meta->data_tail, fake.meta->data_head);
}

TEST(PerfRingBuffer, RejectsSizesThatAreNotPowersOfTwo) {
  FakeRing fake(256);
  auto bad = RingBuffer::overMemory(fake.meta.get(), fake.bytes(), 200);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  auto pages = RingBuffer::map(-1, 3);
  ASSERT_FALSE(pages.ok());
  EXPECT_EQ(pages.error().kind, ErrorKind::kUsage);
  EXPECT_EQ(pages.error().message, "the perf ring must be a power of two pages, not 3");
}

TEST(PerfRingBuffer, EmptyAndMovedFromRingsDrainNothing) {
  RingBuffer empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_EQ(empty.drain([](auto, auto, auto) { ADD_FAILURE(); }), 0u);
  FakeRing fake(256);
  fake.write(numbered(1));
  RingBuffer a = fake.reader();
  RingBuffer b = std::move(a);
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): documented to be empty
  EXPECT_EQ(a.drain([](auto, auto, auto) { ADD_FAILURE(); }), 0u);
  EXPECT_EQ(b.drain([](auto, auto, auto) {}), 1u);
}

}  // namespace
}  // namespace strobe::perf
