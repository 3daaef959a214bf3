// EventQueue: records of several rings and formats come out in time order;
// an engine's own records (pushRaw) come back byte for byte with their
// source, interleaved with perf's by time.
#include "record/event_queue.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "../perf/record_builder.hpp"

namespace strobe::record {
namespace {

// An engine's record: 8 bytes of time, then a tag.
std::vector<uint64_t> rawRecord(uint64_t time, uint64_t tag) {
  return {time, tag};
}

TEST(EventQueue, RawAndPerfRecordsMergeByTime) {
  using perf::testing::RecordBuilder;
  EventQueue q(perf::testing::kSampleType);
  const auto late = rawRecord(7'000'000'000, 0xbbbb);
  const auto early = rawRecord(3'000'000'000, 0xaaaa);
  q.pushRaw(late[0], reinterpret_cast<const uint8_t*>(late.data()), 16, 1);
  auto sample = perf::testing::sample();  // at 5 s
  q.push(sample.hdr(), sample.bytes(), sample.size, 0);
  q.pushRaw(early[0], reinterpret_cast<const uint8_t*>(early.data()), 16, 2);
  EXPECT_EQ(q.pending(), 3u);

  std::vector<std::string> order;
  auto perf_sink = [&](const perf::Record& r, uint8_t source) {
    ASSERT_TRUE(std::holds_alternative<perf::SampleRecord>(r));
    order.push_back("perf@" + std::to_string(source));
  };
  auto raw_sink = [&](const uint8_t* bytes, size_t size, uint8_t source) {
    ASSERT_EQ(size, 16u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes) % 8, 0u);
    uint64_t tag;
    std::memcpy(&tag, bytes + 8, 8);
    order.push_back(std::to_string(tag) + "@" + std::to_string(source));
  };
  // Only what is older than 6 s: the early raw record and the perf sample.
  q.flushBefore(6'000'000'000, perf_sink, raw_sink);
  EXPECT_EQ(order, (std::vector<std::string>{std::to_string(0xaaaa) + "@2", "perf@0"}));
  q.flushAll(perf_sink, raw_sink);
  EXPECT_EQ(order.back(), std::to_string(0xbbbb) + "@1");
  EXPECT_EQ(q.pending(), 0u);
}

// A sink for perf records alone never sees raw ones.
TEST(EventQueue, APerfOnlyFlushSkipsRawRecords) {
  EventQueue q(perf::testing::kSampleType);
  const auto raw = rawRecord(1, 7);
  q.pushRaw(raw[0], reinterpret_cast<const uint8_t*>(raw.data()), 16, 1);
  auto sample = perf::testing::sample();
  q.push(sample.hdr(), sample.bytes(), sample.size, 0);
  int perf_records = 0;
  q.flushAll([&](const perf::Record&) { ++perf_records; });
  EXPECT_EQ(perf_records, 1);
  EXPECT_EQ(q.pending(), 0u);
}

}  // namespace
}  // namespace strobe::record
