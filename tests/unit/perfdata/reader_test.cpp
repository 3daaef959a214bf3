// perfdata::Reader on perf.data files and pipe streams crafted byte by byte
// (perf_data_builder.hpp): events, features, time order across rounds,
// compressed records, and files cut off or corrupt at known places.
#include "perfdata/reader.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "perf_data_builder.hpp"
#include "perfdata/format.hpp"

namespace strobe::perfdata {
namespace {

using testing::PerfDataBuilder;
using testing::RecordBuilder;

constexpr uint64_t kType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                           PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

perf::testing::Built sample(uint64_t time, uint64_t ip = 0x401000, uint32_t tid = 7) {
  return RecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
      .u64(ip)
      .u32(7)
      .u32(tid)
      .u64(time)
      .u64(1'001'001)  // period
      .u64(2)
      .u64(perf::kContextUser)
      .u64(ip)
      .finish();
}

// A COMM record with the sample_id trailer of kType (TID, TIME).
perf::testing::Built comm(uint64_t time, const char* name) {
  return RecordBuilder(PERF_RECORD_COMM).u32(7).u32(7).str(name).u32(7).u32(7).u64(time).finish();
}

// Bytes in a memfd, read back through Reader::open(Fd).
Result<std::unique_ptr<Reader>> openBytes(const std::vector<uint8_t>& bytes) {
  Fd fd(::memfd_create("perfdata-test", MFD_CLOEXEC));
  EXPECT_EQ(::write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  return Reader::open(std::move(fd), "test.data");
}

// A pipe's stream through a real pipe (a writer thread would be needed for
// more than the pipe's buffer; the tests' streams are small).
Result<std::unique_ptr<Reader>> openPipe(const std::vector<uint8_t>& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  return Reader::open(Fd(fds[0]), "pipe");
}

struct Seen {
  uint32_t type;
  uint64_t time;
  uint32_t event;
};

std::vector<Seen> readAll(Reader& r) {
  std::vector<Seen> seen;
  r.read([&](const RecordView& v) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.bytes) % 8, 0u);
    seen.push_back({reinterpret_cast<const perf_event_header*>(v.bytes)->type, v.time, v.event});
  });
  return seen;
}

std::vector<uint64_t> times(const std::vector<Seen>& seen) {
  std::vector<uint64_t> t;
  for (const Seen& s : seen) t.push_back(s.time);
  return t;
}

PerfDataBuilder oneEvent() {
  PerfDataBuilder b;
  b.addEvent(testing::cpuClockAttr(kType), {11, 12});
  return b;
}

TEST(PerfDataReader, HeaderEventsAndFeatures) {
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(100));
  b.addStringFeature(kFeatHostname, "build-host");
  b.addStringFeature(kFeatOsRelease, "6.1.0-test");
  b.addStringFeature(kFeatVersion, "6.1.99");
  b.addStringFeature(kFeatCpuDesc, "Test CPU @ 3GHz");
  b.addCmdline({"/usr/bin/perf", "record", "-g", "--", "./app", "big file"});
  std::vector<uint8_t> ids =
      testing::buildIdEntry(-1, {0xab, 0xcd, 0x01}, "[kernel.kallsyms]", PERF_RECORD_MISC_KERNEL);
  std::vector<uint8_t> user =
      testing::buildIdEntry(7, std::vector<uint8_t>(20, 0x5a), "/bin/app", PERF_RECORD_MISC_USER);
  ids.insert(ids.end(), user.begin(), user.end());
  b.addFeature(kFeatBuildId, ids);
  auto r = openBytes(b.file());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  Reader& reader = **r;
  EXPECT_FALSE(reader.pipeMode());
  ASSERT_EQ(reader.events().size(), 1u);
  EXPECT_EQ(reader.events().events()[0].attr.sample_type, kType);
  EXPECT_EQ(reader.events().events()[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(reader.events().displayName(0), "cpu-clock");
  const Features& f = reader.features();
  EXPECT_EQ(f.hostname, "build-host");
  EXPECT_EQ(f.os_release, "6.1.0-test");
  EXPECT_EQ(f.perf_version, "6.1.99");
  EXPECT_EQ(f.cpu_desc, "Test CPU @ 3GHz");
  EXPECT_EQ(f.cmdline,
            (std::vector<std::string>{"/usr/bin/perf", "record", "-g", "--", "./app", "big file"}));
  ASSERT_EQ(f.build_ids.size(), 2u);
  EXPECT_EQ(f.build_ids[0].build_id, "abcd01");
  EXPECT_TRUE(f.build_ids[0].kernel);
  EXPECT_EQ(f.build_ids[0].pid, -1);
  EXPECT_EQ(f.build_ids[0].path, "[kernel.kallsyms]");
  std::string hex;
  for (int i = 0; i < 20; ++i) hex += "5a";
  EXPECT_EQ(f.build_ids[1].build_id, hex);
  EXPECT_FALSE(f.build_ids[1].kernel);
  EXPECT_EQ(f.build_ids[1].path, "/bin/app");
  EXPECT_EQ(times(readAll(reader)), (std::vector<uint64_t>{100}));
  EXPECT_TRUE(reader.warnings().empty());
  EXPECT_FALSE(reader.cutShort());
}

TEST(PerfDataReader, RecordsComeInTimeOrderAcrossRounds) {
  // Two CPUs' rings read in turn: a round interleaves in time with the
  // next, never with the one after (perf's FINISHED_ROUND contract).
  PerfDataBuilder b = oneEvent();
  b.addRecord(comm(0, "app"));  // synthesized at the start: time 0
  b.addRecord(sample(10));
  b.addRecord(sample(30));
  b.addRecord(sample(20));
  b.finishedRound();
  b.addRecord(sample(50));
  b.addRecord(sample(25));
  b.addRecord(sample(40));
  b.finishedRound();
  b.addRecord(sample(60));
  auto r = openBytes(b.file());
  ASSERT_TRUE(r.ok());
  std::vector<Seen> seen = readAll(**r);
  EXPECT_EQ(times(seen), (std::vector<uint64_t>{0, 10, 20, 25, 30, 40, 50, 60}));
  EXPECT_EQ(seen[0].type, static_cast<uint32_t>(PERF_RECORD_COMM));
  EXPECT_EQ((*r)->stats().rounds, 2u);
  EXPECT_EQ((*r)->stats().samples, 7u);
}

TEST(PerfDataReader, PipeModeCarriesAttrsFeaturesAndNames) {
  PerfDataBuilder b;
  perf_event_attr a = testing::cpuClockAttr(kType | PERF_SAMPLE_IDENTIFIER);
  perf_event_attr c = a;
  c.config = PERF_COUNT_SW_TASK_CLOCK;
  b.addEvent(a, {1, 2});
  b.addEvent(c, {3});
  b.addStringFeature(kFeatHostname, "pipe-host");
  // Samples with PERF_SAMPLE_IDENTIFIER first: the id names the event.
  auto id_sample = [](uint64_t id, uint64_t time) {
    return RecordBuilder(PERF_RECORD_SAMPLE)
        .u64(id)
        .u64(0x401000)
        .u32(7)
        .u32(7)
        .u64(time)
        .u64(1000)
        .u64(0)
        .finish();
  };
  b.addRecord(id_sample(3, 20));
  b.addRecord(id_sample(2, 10));
  b.addRecord(
      RecordBuilder(kRecordEventUpdate).u64(kEventUpdateName).u64(3).str("task-clock:u").finish());
  b.addBytes(
      testing::buildIdEntry(7, std::vector<uint8_t>(20, 1), "/bin/app", PERF_RECORD_MISC_USER));
  b.finishedRound();
  auto r = openPipe(b.pipe());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  std::vector<Seen> seen = readAll(**r);
  Reader& reader = **r;
  EXPECT_TRUE(reader.pipeMode());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].time, 10u);
  EXPECT_EQ(seen[0].event, 0u);
  EXPECT_EQ(seen[1].time, 20u);
  EXPECT_EQ(seen[1].event, 1u);
  EXPECT_EQ(reader.features().hostname, "pipe-host");
  ASSERT_EQ(reader.features().build_ids.size(), 1u);
  EXPECT_EQ(reader.features().build_ids[0].path, "/bin/app");
  EXPECT_EQ(reader.events().displayName(1), "task-clock:u");
  EXPECT_EQ(reader.events().displayName(0), "cpu-clock");
}

TEST(PerfDataReader, CompressedRecordsAreExpanded) {
  for (bool version2 : {false, true}) {
    PerfDataBuilder b = oneEvent();
    for (uint64_t t = 1; t <= 200; ++t) b.addRecord(sample(t * 10, 0x401000 + t));
    // Pieces of 100 bytes: records straddle them.
    b.compressData(100, version2);
    b.finishedRound();
    b.addFeature(kFeatCompressed, std::vector<uint8_t>(20, 0));
    auto r = openBytes(b.file());
    ASSERT_TRUE(r.ok());
    std::vector<Seen> seen = readAll(**r);
    ASSERT_EQ(seen.size(), 200u) << "version2 " << version2;
    EXPECT_EQ(seen.back().time, 2000u);
    EXPECT_GT((*r)->stats().compressed_records, 1u);
    EXPECT_TRUE((*r)->warnings().empty()) << (*r)->warnings().front();
  }
}

TEST(PerfDataReader, ACutOffFileKeepsWhatCameBeforeAndSaysWhere) {
  PerfDataBuilder b = oneEvent();
  for (uint64_t t = 1; t <= 5; ++t) b.addRecord(sample(t));
  b.addStringFeature(kFeatHostname, "h");
  std::vector<uint8_t> whole = b.file();
  // Cut inside the fourth sample (data starts after the header, the ids
  // and the attr).
  const size_t n = sample(0).size;
  const size_t data_at = sizeof(FileHeader) + 16 + sizeof(perf_event_attr) + 16;
  std::vector<uint8_t> cut(whole.begin(), whole.begin() + data_at + 3 * n + 20);
  auto r = openBytes(cut);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(times(readAll(**r)), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_TRUE((*r)->cutShort());
  std::string all;
  for (const std::string& w : (*r)->warnings()) all += w + "\n";
  EXPECT_NE(all.find("test.data: the file is cut off: its data should end at byte " +
                     std::to_string(data_at + 5 * n) + " but the file has " +
                     std::to_string(cut.size()) + " bytes; reading what is there"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("the SAMPLE record at byte " + std::to_string(data_at + 3 * n) + " (" +
                     std::to_string(n) + " bytes) is cut off by the end of the data"),
            std::string::npos)
      << all;
}

TEST(PerfDataReader, RecordsAfterAnOddSizedOneAreRead) {
  // A record of 12 bytes (perf's own are multiples of 8; a file is not
  // bound to be) leaves the next ones misaligned in the stream.
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(1));
  std::vector<uint8_t> odd = {99, 0, 0, 0, 0, 0, 12, 0, 1, 2, 3, 4};
  b.addBytes(odd);
  b.addRecord(sample(2));
  b.addRecord(comm(3, "app"));
  for (bool in_order : {true, false}) {
    auto r = openBytes(b.file());
    ASSERT_TRUE(r.ok());
    std::vector<uint64_t> seen;
    (*r)->read(
        [&](const RecordView& v) {
          EXPECT_EQ(reinterpret_cast<uintptr_t>(v.bytes) % 8, 0u);
          seen.push_back(v.time);
        },
        in_order);
    EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3})) << "in order " << in_order;
  }
}

TEST(PerfDataReader, ACorruptRecordHeaderStopsTheReadingThere) {
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(1));
  b.addRecord(sample(2));
  b.addBytes(std::vector<uint8_t>(16, 0));  // a header of size 0
  b.addRecord(sample(3));
  auto r = openBytes(b.file());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(times(readAll(**r)), (std::vector<uint64_t>{1, 2}));
  ASSERT_EQ((*r)->warnings().size(), 1u);
  const size_t data_at = sizeof(FileHeader) + 16 + sizeof(perf_event_attr) + 16;
  EXPECT_EQ((*r)->warnings()[0], "test.data: corrupt record at byte " +
                                     std::to_string(data_at + 2 * sample(0).size) +
                                     ": its header says 0 bytes (type 0); reading stopped there");
}

TEST(PerfDataReader, AnUnfinishedRecordingIsReadToTheFilesEnd) {
  // perf record killed before it wrote the header's data size.
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(1));
  b.addRecord(sample(2));
  auto r = openBytes(b.file(/*data_size_override=*/0));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(times(readAll(**r)), (std::vector<uint64_t>{1, 2}));
  ASSERT_FALSE((*r)->warnings().empty());
  EXPECT_NE((*r)->warnings()[0].find("perf record did not finish (killed?)"), std::string::npos);
}

TEST(PerfDataReader, PayloadsAfterRecordsAreSkipped) {
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(1));
  // AUXTRACE: its size field, then that many bytes outside the record.
  b.addRecord(
      RecordBuilder(kRecordAuxtrace).u64(24).u64(0).u64(0).u32(0).u32(0).u32(0).u32(0).finish());
  b.addBytes(std::vector<uint8_t>(24, 0xee));
  b.addRecord(sample(2));
  auto r = openBytes(b.file());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(times(readAll(**r)), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ((*r)->stats().aux_records, 1u);
  ASSERT_EQ((*r)->warnings().size(), 1u);
  EXPECT_NE((*r)->warnings()[0].find("AUX area trace data"), std::string::npos);
}

TEST(PerfDataReader, AFeatureOutsideTheFileIsLeftOut) {
  PerfDataBuilder b = oneEvent();
  b.addRecord(sample(1));
  b.addStringFeature(kFeatHostname, "host");
  b.addStringFeature(kFeatOsRelease, "release");
  std::vector<uint8_t> bytes = b.file();
  // The OSRELEASE section's entry in the table says it lies far away.
  FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  const size_t table = h.data.offset + h.data.size;
  FileSection far{1ULL << 40, 8};
  std::memcpy(bytes.data() + table + sizeof(FileSection), &far, sizeof far);
  auto r = openBytes(bytes);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->features().hostname, "host");
  EXPECT_EQ((*r)->features().os_release, "");
  ASSERT_EQ((*r)->warnings().size(), 1u);
  EXPECT_EQ((*r)->warnings()[0],
            "test.data: its OSRELEASE feature section (8 bytes at byte 1099511627776) lies "
            "outside the file: left out");
}

TEST(PerfDataReader, RefusesWhatIsNotAPerfDataFile) {
  auto r = openBytes(std::vector<uint8_t>(200, 'x'));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "test.data is not a perf.data file (no PERFILE2 magic)");
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  std::vector<uint8_t> swapped = oneEvent().file();
  std::memcpy(swapped.data(), &kMagicSwapped, 8);
  r = openBytes(swapped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUnsupported);
  EXPECT_TRUE(looksLikePerfData(swapped.data(), swapped.size()));
  EXPECT_FALSE(looksLikePerfData(reinterpret_cast<const uint8_t*>("SQLite format 3"), 16));
}

TEST(PerfDataReader, ATruncatedHeaderIsAnError) {
  std::vector<uint8_t> bytes = oneEvent().file();
  bytes.resize(60);
  auto r = openBytes(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "test.data: the perf.data header is cut off (60 bytes in the file)");
}

}  // namespace
}  // namespace strobe::perfdata
