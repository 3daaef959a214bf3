// SAMPLE records with PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER
// (-g dwarf), from crafted bytes laid out as linux/perf_event.h says.
#include <gtest/gtest.h>

#include "perf/records.hpp"
#include "record_builder.hpp"

namespace strobe::perf {
namespace {

using testing::Built;
using testing::kSampleType;
using testing::RecordBuilder;

constexpr uint64_t kDwarfType = kSampleType | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
constexpr uint64_t kMask = 0b111;  // three registers

RecordBuilder prefix() {
  RecordBuilder b(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  b.u64(0x401234).u32(100).u32(101).u64(7).u32(1).u32(0).u64(1000);
  b.u64(2).u64(kContextUser).u64(0x401234);  // callchain
  return b;
}

Result<Record> decodeDwarf(const Built& b) {
  return decodeRecord(b.hdr(), b.bytes(), b.size, kDwarfType, kMask);
}

TEST(PerfRecordsUserStack, DecodesRegistersAndTheCopiedStack) {
  RecordBuilder b = prefix();
  b.u64(PERF_SAMPLE_REGS_ABI_64).u64(11).u64(22).u64(33);
  b.u64(16);                  // stack size
  b.u64(0xaaaa).u64(0xbbbb);  // 16 bytes of stack
  b.u64(8);                   // dyn_size: only 8 were copied
  Built rec = b.finish();
  auto r = decodeDwarf(rec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& s = std::get<SampleRecord>(*r);
  EXPECT_EQ(s.callchain_len, 2u);
  EXPECT_EQ(s.regs_abi, uint64_t{PERF_SAMPLE_REGS_ABI_64});
  ASSERT_EQ(s.regs_count, 3u);
  EXPECT_EQ(s.regs_mask, kMask);
  EXPECT_EQ(s.regs[0], 11u);
  EXPECT_EQ(s.regs[2], 33u);
  EXPECT_EQ(s.stack_size, 8u);
  uint64_t first = 0;
  std::memcpy(&first, s.stack, 8);
  EXPECT_EQ(first, 0xaaaau);
}

TEST(PerfRecordsUserStack, NoUserRegistersAndAnEmptyStack) {
  RecordBuilder b = prefix();
  b.u64(PERF_SAMPLE_REGS_ABI_NONE);  // no registers follow
  b.u64(0);                          // size 0: no data, no dyn_size
  Built rec = b.finish();
  auto r = decodeDwarf(rec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& s = std::get<SampleRecord>(*r);
  EXPECT_EQ(s.regs, nullptr);
  EXPECT_EQ(s.stack, nullptr);
  EXPECT_EQ(s.stack_size, 0u);
}

TEST(PerfRecordsUserStack, StackLongerThanTheRecordIsCorrupt) {
  RecordBuilder b = prefix();
  b.u64(PERF_SAMPLE_REGS_ABI_64).u64(1).u64(2).u64(3);
  b.u64(4096).u64(0);  // claims 4 KiB, has 8 bytes
  Built rec = b.finish();
  auto r = decodeDwarf(rec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("truncated SAMPLE record"), std::string::npos)
      << r.error().message;
}

TEST(PerfRecordsUserStack, DynamicSizeAboveTheCopyIsCorrupt) {
  RecordBuilder b = prefix();
  b.u64(PERF_SAMPLE_REGS_ABI_64).u64(1).u64(2).u64(3);
  b.u64(8).u64(0).u64(16);  // dyn_size 16 > size 8
  Built rec = b.finish();
  auto r = decodeDwarf(rec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "corrupt SAMPLE record: the stack's dynamic size 16 at offset 120 exceeds its 8 "
            "bytes");
}

TEST(PerfRecordsUserStack, RegistersCutShortAreCorrupt) {
  RecordBuilder b = prefix();
  b.u64(PERF_SAMPLE_REGS_ABI_64).u64(1);  // 1 of 3 registers
  Built rec = b.finish();
  auto r = decodeDwarf(rec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
}

}  // namespace
}  // namespace strobe::perf
