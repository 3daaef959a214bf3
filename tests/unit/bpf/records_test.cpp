// Decoding the BPF program's records: every section kind, sections a later
// program may add (skipped), and records whose sizes do not fit (errors,
// never reads past the bytes given).
#include "bpf/records.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace strobe::bpf {
namespace {

// A record as the program lays it out: header, then (kind, size, data)
// sections padded to 8 bytes. Kept in 8-byte words (the ring's alignment).
class Builder {
 public:
  Builder(uint16_t kind, uint16_t flags) {
    h_.kind = kind;
    h_.flags = flags;
    h_.time = 123456789;
    h_.pid = 7;
    h_.tid = 8;
    h_.cpu = 1;
    h_.period = 1001001;
    h_.ip = 0x401234;
  }
  Builder& section(uint16_t kind, const void* data, uint32_t size) {
    strobe_section s{kind, 0, size};
    append(&s, sizeof s);
    append(data, size);
    body_.resize((body_.size() + 7) & ~size_t{7});
    ++h_.nsections;
    return *this;
  }
  std::vector<uint64_t> build() {
    h_.size = static_cast<uint32_t>(sizeof h_ + body_.size());
    std::vector<uint64_t> words((h_.size + 7) / 8);
    std::memcpy(words.data(), &h_, sizeof h_);
    std::memcpy(reinterpret_cast<uint8_t*>(words.data()) + sizeof h_, body_.data(), body_.size());
    return words;
  }
  strobe_record& header() { return h_; }

 private:
  void append(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    body_.insert(body_.end(), b, b + n);
  }
  strobe_record h_{};
  std::vector<uint8_t> body_;
};

Result<Record> decode(const std::vector<uint64_t>& w, size_t size = SIZE_MAX) {
  return decodeRecord(reinterpret_cast<const uint8_t*>(w.data()),
                      size == SIZE_MAX ? w.size() * 8 : size);
}

TEST(BpfRecords, ASampleWithEverySection) {
  const uint64_t kstack[] = {0xffffffff81000100, 0xffffffff81000200};
  const uint64_t ustack[] = {0x401234, 0x401500};
  uint64_t regs[STROBE_REGS_COUNT];
  for (uint64_t i = 0; i < STROBE_REGS_COUNT; ++i) regs[i] = i;
  const uint8_t stack[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const uint64_t later[] = {42};  // a section kind this reader does not know
  auto w = Builder(STROBE_REC_SAMPLE, STROBE_F_STACK_SHORT)
               .section(STROBE_SEC_KSTACK, kstack, sizeof kstack)
               .section(99, later, sizeof later)
               .section(STROBE_SEC_USTACK, ustack, sizeof ustack)
               .section(STROBE_SEC_REGS, regs, sizeof regs)
               .section(STROBE_SEC_STACK, stack, sizeof stack)
               .build();
  auto r = decode(w);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->kind, STROBE_REC_SAMPLE);
  EXPECT_EQ(r->flags, STROBE_F_STACK_SHORT);
  EXPECT_EQ(r->time, 123456789u);
  EXPECT_EQ(r->pid, 7u);
  EXPECT_EQ(r->tid, 8u);
  EXPECT_EQ(r->period, 1001001u);
  EXPECT_EQ(r->ip, 0x401234u);
  ASSERT_EQ(r->kernel_stack.size(), 2u);
  EXPECT_EQ(r->kernel_stack[1], 0xffffffff81000200u);
  ASSERT_EQ(r->user_stack.size(), 2u);
  EXPECT_EQ(r->user_stack[0], 0x401234u);
  EXPECT_TRUE(r->has_user_stack);
  ASSERT_EQ(r->regs.size(), STROBE_REGS_COUNT);
  EXPECT_EQ(r->regs[16], 16u);
  ASSERT_EQ(r->stack.size(), 12u);  // not padded
  EXPECT_EQ(r->stack[11], 12);
  EXPECT_EQ(recordTime(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 8), 123456789u);
}

TEST(BpfRecords, BuildIdAndRuntimeFrames) {
  strobe_build_id_frame f{};
  f.status = STROBE_BUILD_ID_VALID;
  f.build_id[0] = 0xab;
  f.offset_or_ip = 0x1234;
  const strobe_runtime_frame rt[] = {{0x7f0000001000, 12, 1}, {0x7f0000002000, 40, 1}};
  auto w = Builder(STROBE_REC_SAMPLE, 0)
               .section(STROBE_SEC_USTACK_BUILD_ID, &f, sizeof f)
               .section(STROBE_SEC_RUNTIME, rt, sizeof rt)
               .build();
  auto r = decode(w);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->build_id_stack.size(), 1u);
  EXPECT_EQ(r->build_id_stack[0].build_id[0], 0xab);
  EXPECT_EQ(r->build_id_stack[0].offset_or_ip, 0x1234u);
  ASSERT_EQ(r->runtime_frames.size(), 2u);
  EXPECT_EQ(r->runtime_frames[1].offset, 40u);
}

TEST(BpfRecords, SwitchRecordsHaveNoSections) {
  auto w = Builder(STROBE_REC_SWITCH_IN, 0).build();
  auto r = decode(w);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, STROBE_REC_SWITCH_IN);
  EXPECT_FALSE(r->has_user_stack);
}

TEST(BpfRecords, WhatDoesNotFitIsAnError) {
  const uint64_t ustack[] = {0x401234, 0x401500};
  auto good = Builder(STROBE_REC_SAMPLE, 0).section(STROBE_SEC_USTACK, ustack, 16).build();
  // Shorter than the header; shorter than its own size.
  EXPECT_EQ(decode(good, 40).error().message,
            "BPF record: a record shorter than its header at offset 0");
  EXPECT_EQ(decode(good, 60).error().message,
            "BPF record: a record size out of bounds at offset 4");
  // A section past the end of the record.
  Builder b(STROBE_REC_SAMPLE, 0);
  b.section(STROBE_SEC_USTACK, ustack, 16);
  auto w = b.build();
  auto* s = reinterpret_cast<strobe_section*>(reinterpret_cast<uint8_t*>(w.data()) + 48);
  s->size = 1 << 20;
  EXPECT_EQ(decode(w).error().message,
            "BPF record: a section of 1048576 bytes past the end at offset 48");
  // More sections than the record holds.
  auto more = Builder(STROBE_REC_SAMPLE, 0).section(STROBE_SEC_USTACK, ustack, 16).build();
  reinterpret_cast<strobe_record*>(more.data())->nsections = 3;
  EXPECT_EQ(decode(more).error().message, "BPF record: a section header past the end at offset 72");
  // Partial frames, a register block of the wrong size, an unknown kind.
  EXPECT_FALSE(
      decode(Builder(STROBE_REC_SAMPLE, 0).section(STROBE_SEC_USTACK, ustack, 12).build()).ok());
  EXPECT_FALSE(
      decode(Builder(STROBE_REC_SAMPLE, 0).section(STROBE_SEC_REGS, ustack, 16).build()).ok());
  EXPECT_EQ(decode(Builder(9, 0).build()).error().message,
            "BPF record: an unknown record kind 9 at offset 0");
}

}  // namespace
}  // namespace strobe::bpf
