// The jitdump reader on files built byte by byte: every record kind in the
// host's byte order and in the other one, and damaged files that it must
// refuse with a clear problem (never a crash or an endless wait).
#include "symbolize/jitdump.hpp"

#include <byteswap.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace strobe::symbolize {
namespace {

// Builds a jitdump in either byte order, field by field (independently of
// the append*() writers, which are tested against this reader below).
class Bytes {
 public:
  explicit Bytes(bool swap) : swap_(swap) {}
  Bytes& u32(uint32_t v) {
    if (swap_) v = bswap_32(v);
    s_.append(reinterpret_cast<const char*>(&v), 4);
    return *this;
  }
  Bytes& u64(uint64_t v) {
    if (swap_) v = bswap_64(v);
    s_.append(reinterpret_cast<const char*>(&v), 8);
    return *this;
  }
  Bytes& str(const std::string& v) {
    s_.append(v).push_back('\0');
    return *this;
  }
  Bytes& raw(const std::string& v) {
    s_.append(v);
    return *this;
  }
  Bytes& header(uint32_t version = 1, uint32_t size = 40, uint64_t flags = 0) {
    // The magic is written as the writer's own uint32, like every field.
    return u32(kJitdumpMagic).u32(version).u32(size).u32(62).u32(0).u32(4242).u64(1000).u64(flags);
  }
  Bytes& prefix(uint32_t id, uint32_t size, uint64_t time) { return u32(id).u32(size).u64(time); }
  Bytes& load(uint64_t time, uint64_t addr, const std::string& name, const std::string& code,
              uint64_t index) {
    prefix(0, static_cast<uint32_t>(16 + 40 + name.size() + 1 + code.size()), time);
    return u32(4242).u32(4243).u64(addr).u64(addr).u64(code.size()).u64(index).str(name).raw(code);
  }
  const std::string& str() const { return s_; }
  std::span<const uint8_t> span() const {
    return {reinterpret_cast<const uint8_t*>(s_.data()), s_.size()};
  }
  size_t size() const { return s_.size(); }

 private:
  bool swap_;
  std::string s_;
};

JitdumpFile parse(const Bytes& b) {
  return parseJitdump(b.span());
}

class JitdumpBothOrders : public ::testing::TestWithParam<bool> {};

TEST_P(JitdumpBothOrders, ReadsEveryRecordKind) {
  const bool swap = GetParam();
  Bytes b(swap);
  b.header();
  // Debug info precedes its load: two rows, the second file given as "\xff"
  // (the same as before, as perf's JVMTI agent writes it).
  b.prefix(2, 16 + 16 + (16 + 7) + (16 + 2), 1500)
      .u64(0x7f0000001000)
      .u64(2)
      .u64(0x7f0000001000)
      .u32(3)
      .u32(0)
      .str("app.js")
      .u64(0x7f0000001008)
      .u32(4)
      .u32(7)
      .str("\xff");
  b.load(2000, 0x7f0000001000, "JS:*hot /app.js:3", std::string("\x90\x90\xc3\xcc", 4), 7);
  b.prefix(1, 16 + 48, 3000)
      .u32(4242)
      .u32(4243)
      .u64(0x7f0000009000)
      .u64(0x7f0000001000)
      .u64(0x7f0000009000)
      .u64(4)
      .u64(7);
  b.prefix(4, 16 + 24 + 8, 3500).u64(8).u64(0).u64(0).raw(std::string(8, 'u'));
  b.prefix(77, 16 + 5, 3600).raw("abcde");  // unknown: skipped by its size
  b.prefix(3, 16, 4000);

  JitdumpFile f = parse(b);
  EXPECT_EQ(f.problem, "");
  EXPECT_EQ(f.header.swapped, swap);
  EXPECT_EQ(f.header.version, 1U);
  EXPECT_EQ(f.header.pid, 4242U);
  EXPECT_EQ(f.header.elf_mach, 62U);
  EXPECT_EQ(f.header.timestamp, 1000U);
  ASSERT_EQ(f.records.size(), 6U);

  const JitdumpRecord& debug = f.records[0];
  EXPECT_EQ(debug.id, 2U);
  EXPECT_EQ(debug.timestamp, 1500U);
  EXPECT_EQ(debug.code_addr, 0x7f0000001000U);
  ASSERT_EQ(debug.lines.size(), 2U);
  EXPECT_EQ(debug.lines[0].address, 0x7f0000001000U);
  EXPECT_EQ(debug.lines[0].line, 3U);
  EXPECT_EQ(debug.lines[0].file, "app.js");
  EXPECT_EQ(debug.lines[1].line, 4U);
  EXPECT_EQ(debug.lines[1].discriminator, 7U);
  EXPECT_EQ(debug.lines[1].file, "app.js");

  const JitdumpRecord& load = f.records[1];
  EXPECT_EQ(load.id, 0U);
  EXPECT_EQ(load.timestamp, 2000U);
  EXPECT_EQ(load.pid, 4242U);
  EXPECT_EQ(load.tid, 4243U);
  EXPECT_EQ(load.code_addr, 0x7f0000001000U);
  EXPECT_EQ(load.code_size, 4U);
  EXPECT_EQ(load.code_index, 7U);
  EXPECT_EQ(load.name, "JS:*hot /app.js:3");
  ASSERT_EQ(load.code.size(), 4U);
  EXPECT_EQ(load.code[0], 0x90);
  EXPECT_EQ(load.code[3], 0xcc);

  const JitdumpRecord& move = f.records[2];
  EXPECT_EQ(move.id, 1U);
  EXPECT_EQ(move.code_addr, 0x7f0000001000U);  // the old address
  EXPECT_EQ(move.new_code_addr, 0x7f0000009000U);
  EXPECT_EQ(move.code_size, 4U);
  EXPECT_EQ(move.code_index, 7U);

  EXPECT_EQ(f.records[3].id, 4U);
  EXPECT_EQ(f.records[4].id, 77U);
  EXPECT_EQ(f.records[5].id, 3U);
  EXPECT_EQ(f.records[5].timestamp, 4000U);
}

INSTANTIATE_TEST_SUITE_P(Orders, JitdumpBothOrders, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Swapped" : "Host"; });

TEST(JitdumpTest, WritersProduceWhatTheReaderReads) {
  std::string out;
  appendJitdumpHeader(out, 99, 5);
  const uint8_t code[] = {0x55, 0x48, 0x89, 0xe5, 0xc3};
  std::vector<JitdumpLine> lines = {{0x1000, 10, 0, "a.lua"}, {0x1003, 11, 0, "a.lua"}};
  appendJitdumpDebugInfo(out, 6, 0x1000, lines);
  appendJitdumpLoad(out, 6, 99, 100, 0x1000, code, 0, "loop");
  appendJitdumpMove(out, 7, 99, 100, 0x1000, 0x2000, sizeof code, 0);
  appendJitdumpClose(out, 8);
  JitdumpFile f = parseJitdump({reinterpret_cast<const uint8_t*>(out.data()), out.size()});
  EXPECT_EQ(f.problem, "");
  EXPECT_FALSE(f.header.swapped);
  EXPECT_EQ(f.header.pid, 99U);
  ASSERT_EQ(f.records.size(), 4U);
  EXPECT_EQ(f.records[0].lines.size(), 2U);
  EXPECT_EQ(f.records[0].lines[1].file, "a.lua");
  EXPECT_EQ(f.records[1].name, "loop");
  EXPECT_EQ(f.records[1].code.size(), sizeof code);
  EXPECT_EQ(f.records[1].code[3], 0xe5);
  EXPECT_EQ(f.records[2].new_code_addr, 0x2000U);
  EXPECT_EQ(f.records[3].id, 3U);
}

TEST(JitdumpTest, RefusesWhatIsNotAJitdump) {
  Bytes b(false);
  b.u32(0x464c457f).raw(std::string(60, '\0'));  // an ELF file
  EXPECT_EQ(parse(b).problem, "not a jitdump file (magic 0x464c457f, expected 0x4a695444 'JiTD')");
  Bytes v(false);
  v.header(9);
  EXPECT_EQ(parse(v).problem, "jitdump version 9 (strobe reads versions 1 and 2)");
  Bytes h(true);
  h.header(1, 12);
  EXPECT_EQ(parse(h).problem, "jitdump header size 12 (at least 40)");
  EXPECT_EQ(parseJitdump({}).problem, "the jitdump header is cut off (0 bytes)");
}

TEST(JitdumpTest, ALongerHeaderIsSkipped) {
  Bytes b(false);
  b.header(2, 48).u64(0xdeadbeef).load(10, 0x5000, "f", "\xc3", 1);
  JitdumpFile f = parse(b);
  EXPECT_EQ(f.problem, "");
  ASSERT_EQ(f.records.size(), 1U);
  EXPECT_EQ(f.records[0].name, "f");
}

TEST(JitdumpTest, CutOffFilesKeepTheirCompleteRecords) {
  Bytes b(false);
  b.header().load(10, 0x5000, "first", "\xc3", 1).load(20, 0x6000, "second", "\xc3\xc3", 2);
  const std::string whole = b.str();
  // Cut inside the second record's prefix, then inside its body.
  for (size_t cut : {whole.size() - 60, whole.size() - 3}) {
    std::span<const uint8_t> part(reinterpret_cast<const uint8_t*>(whole.data()), cut);
    JitdumpFile f = parseJitdump(part);
    ASSERT_EQ(f.records.size(), 1U) << cut;
    EXPECT_EQ(f.records[0].name, "first");
    const size_t at = 40 + 16 + 40 + 6 + 1;
    if (cut - at < 16) {
      EXPECT_EQ(f.problem, "a record is cut off (" + std::to_string(cut - at) +
                               " bytes at the end) at offset " + std::to_string(at));
    } else {
      EXPECT_EQ(f.problem, "CODE_LOAD (id 0) is cut off (" + std::to_string(cut - at) +
                               " of 65 bytes) at offset " + std::to_string(at));
    }
  }
  // A header cut off.
  std::span<const uint8_t> head(reinterpret_cast<const uint8_t*>(whole.data()), 20);
  EXPECT_EQ(parseJitdump(head).problem, "the jitdump header is cut off (20 of 40 bytes)");
  JitdumpHeader h;
  std::string problem;
  EXPECT_EQ(parseJitdumpHeader(head, h, problem), JitdumpStatus::kIncomplete);
}

TEST(JitdumpTest, StopsWhereARecordSizeCannotBeRight) {
  Bytes small(false);
  small.header().prefix(0, 8, 1);
  EXPECT_EQ(parse(small).problem, "CODE_LOAD (id 0) claims 8 bytes at offset 40");
  EXPECT_TRUE(parse(small).records.empty());
  Bytes huge(true);
  huge.header().prefix(2, 0x7fffffff, 1);
  EXPECT_EQ(parse(huge).problem, "CODE_DEBUG_INFO (id 2) claims 2147483647 bytes at offset 40");
}

TEST(JitdumpTest, SkipsRecordsWhoseContentDoesNotFitTheirSize) {
  struct Case {
    std::string what;
    Bytes bytes;
    std::string damaged;
  };
  std::vector<Case> cases;
  auto add = [&](std::string what, std::function<void(Bytes&)> record, std::string damaged) {
    Bytes b(false);
    b.header();
    record(b);
    cases.push_back({std::move(what), std::move(b), std::move(damaged)});
  };
  add(
      "load shorter than its fields",
      [](Bytes& b) { b.prefix(0, 16 + 20, 1).raw(std::string(20, 'x')); },
      "CODE_LOAD (id 0) of 36 bytes is shorter than its 56-byte fixed part");
  add(
      "name without NUL",
      [](Bytes& b) {
        b.prefix(0, 16 + 40 + 4, 1).u32(1).u32(1).u64(1).u64(1).u64(0).u64(0).raw("abcd");
      },
      "CODE_LOAD (id 0): the function name has no terminating NUL");
  add(
      "code larger than the record",
      [](Bytes& b) {
        b.prefix(0, 16 + 40 + 2, 1).u32(1).u32(1).u64(1).u64(1).u64(100).u64(0).str("f");
      },
      "CODE_LOAD (id 0) for 'f': code_size 100 exceeds the 0 bytes left in the record");
  add(
      "too many debug entries",
      [](Bytes& b) {
        b.prefix(2, 16 + 16 + 17, 1).u64(0x1000).u64(1000).raw(std::string(17, 'x'));
      },
      "CODE_DEBUG_INFO (id 2) claims 1000 entries in 17 bytes");
  add(
      "debug entry without NUL",
      [](Bytes& b) {
        b.prefix(2, 16 + 16 + 18, 1).u64(0x1000).u64(1).u64(0x1000).u32(1).u32(0).raw("ab");
      },
      "CODE_DEBUG_INFO (id 2): entry 0 of 1 runs past the record's end");
  // As node 20's V8 writes some: file names that are not what they claim,
  // so the entries do not fill the record.
  add(
      "entries that do not fill the record",
      [](Bytes& b) {
        b.prefix(2, 16 + 16 + 21 + 24, 1)
            .u64(0x1000)
            .u64(1)
            .u64(0x1040)
            .u32(3)
            .u32(7)
            .str("x.js")
            .raw(std::string(24, 'g'));
      },
      "CODE_DEBUG_INFO (id 2): its 1 entries fill 21 of its 45 bytes");
  add(
      "a file name with control characters",
      [](Bytes& b) {
        b.prefix(2, 16 + 16 + 20, 1)
            .u64(0x1000)
            .u64(1)
            .u64(0x1000)
            .u32(3)
            .u32(0)
            .str("\xa2\x91\x03");
      },
      "CODE_DEBUG_INFO (id 2): entry 0 names a file with control characters");
  add(
      "move shorter than its fields", [](Bytes& b) { b.prefix(1, 16 + 8, 1).u64(0); },
      "CODE_MOVE (id 1) of 24 bytes is shorter than its 64-byte fixed part");
  for (Case& c : cases) {
    // The damaged record is skipped; the load after it is read.
    c.bytes.load(5, 0x9000, "after", "\xc3", 3);
    JitdumpFile f = parse(c.bytes);
    EXPECT_EQ(f.problem, "") << c.what;
    ASSERT_EQ(f.records.size(), 2U) << c.what;
    EXPECT_EQ(f.records[0].damaged, c.damaged) << c.what;
    EXPECT_TRUE(f.records[0].lines.empty()) << c.what;
    EXPECT_TRUE(f.records[0].code.empty()) << c.what;
    EXPECT_EQ(f.records[1].damaged, "") << c.what;
    EXPECT_EQ(f.records[1].name, "after") << c.what;
  }
}

}  // namespace
}  // namespace strobe::symbolize
