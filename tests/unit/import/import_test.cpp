// import::importPerfData on perf.data files crafted byte by byte (with
// tests/unit/perfdata's builder): the records reach the Profile as a
// recording's would (threads, mappings, stacks named from this test's own
// binary, LOST and THROTTLE counted), the header becomes the meta; perf's
// command line read as perf parses it; files found in a build-id cache.
#include "import/perf_import.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../perfdata/perf_data_builder.hpp"
#include "import/kernel_symbols.hpp"
#include "import/module_files.hpp"
#include "import/perf_meta.hpp"
#include "model/aggregate.hpp"
#include "symbolize/elf_file.hpp"

extern "C" __attribute__((noinline)) int import_test_leaf(int x) {
  return x * 3 + 1;
}

namespace strobe::import {
namespace {

using perfdata::testing::PerfDataBuilder;
using perfdata::testing::RecordBuilder;
namespace fs = std::filesystem;

constexpr uint64_t kType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                           PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
constexpr uint32_t kPid = 4242;

// The executable mapping of this test's binary: start, end, file offset.
struct Text {
  uint64_t start = 0, end = 0, pgoff = 0;
  std::string path;
};

Text ownText() {
  Text t;
  std::ifstream maps("/proc/self/maps");
  const auto leaf = reinterpret_cast<uint64_t>(&import_test_leaf);
  for (std::string line; std::getline(maps, line);) {
    unsigned long long s = 0, e = 0, off = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx", &s, &e, perms, &off) != 4) continue;
    if (leaf < s || leaf >= e) continue;
    t = {s, e, off, line.substr(line.find('/'))};
  }
  return t;
}

perf::testing::Built sample(uint32_t tid, uint64_t time, uint64_t ip) {
  return RecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
      .u64(ip)
      .u32(kPid)
      .u32(tid)
      .u64(time)
      .u32(1)
      .u32(0)
      .u64(1'000'000)  // period: 1 ms of CPU
      .u64(2)
      .u64(perf::kContextUser)
      .u64(ip)
      .finish();
}

// The sample_id trailer of kType: TID, TIME, CPU.
RecordBuilder& trailer(RecordBuilder& b, uint32_t tid, uint64_t time) {
  return b.sampleId(kPid, tid, time, 1);
}

perf::testing::Built comm(uint32_t tid, uint64_t time, const char* name, bool exec) {
  RecordBuilder b(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
  b.u32(kPid).u32(tid).str(name);
  return trailer(b, tid, time).finish();
}

perf::testing::Built mmap2(const Text& t, uint64_t time, uint32_t prot) {
  RecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  b.u32(kPid).u32(kPid).u64(t.start).u64(t.end - t.start).u64(t.pgoff);
  b.u32(0).u32(0).u64(0).u64(0);  // maj, min, ino, ino_generation
  b.u32(prot).u32(MAP_PRIVATE).str(t.path);
  return trailer(b, kPid, time).finish();
}

class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/strobe-import-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<ImportOutcome> import(const std::vector<uint8_t>& bytes, model::Profile& p,
                               ImportOptions options = {}) {
    const std::string file = dir_ + "/perf.data";
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    if (options.build_id_dir.empty()) options.build_id_dir = dir_ + "/cache";
    options.perf_map_dir = dir_;
    return importPerfData(file, options, p);
  }

  std::string dir_;
};

TEST_F(ImportTest, RecordsBecomeTheProfileARecordingWouldBe) {
  const Text text = ownText();
  ASSERT_FALSE(text.path.empty());
  const auto leaf = reinterpret_cast<uint64_t>(&import_test_leaf);
  PerfDataBuilder b;
  b.addEvent(perfdata::testing::cpuClockAttr(kType | PERF_SAMPLE_CPU), {1});
  b.addStringFeature(perfdata::kFeatHostname, "build-7");
  b.addStringFeature(perfdata::kFeatOsRelease, "6.1.0-9-amd64");
  b.addStringFeature(perfdata::kFeatVersion, "6.1.99");
  b.addStringFeature(perfdata::kFeatCpuDesc, "Some CPU");
  b.addCmdline({"/usr/bin/perf", "record", "-F", "999", "-g", "./app", "input.txt"});
  b.addRecord(comm(kPid, 0, "perf-exec", false));
  b.addRecord(comm(kPid, 1000, "app", true));
  b.addRecord(mmap2(text, 1100, PROT_READ | PROT_EXEC));
  // A data mapping over nothing sampled (perf record -d): no module.
  Text data = text;
  data.start = 0x10000, data.end = 0x20000, data.path = "/var/data.bin";
  b.addRecord(mmap2(data, 1150, PROT_READ));
  RecordBuilder fork(PERF_RECORD_FORK);
  fork.u32(kPid).u32(kPid).u32(kPid + 1).u32(kPid).u64(1200);
  b.addRecord(trailer(fork, kPid + 1, 1200).finish());
  for (uint64_t i = 0; i < 10; ++i) b.addRecord(sample(kPid, 2000 + i * 1000, leaf));
  for (uint64_t i = 0; i < 5; ++i) b.addRecord(sample(kPid + 1, 2500 + i * 1000, leaf + 1));
  RecordBuilder lost(PERF_RECORD_LOST);
  lost.u64(1).u64(7);
  b.addRecord(trailer(lost, kPid, 20000).finish());
  RecordBuilder throttle(PERF_RECORD_THROTTLE);
  throttle.u64(21000).u64(1).u64(1);
  b.addRecord(trailer(throttle, kPid, 21000).finish());
  RecordBuilder exit(PERF_RECORD_EXIT);
  exit.u32(kPid).u32(kPid).u32(kPid + 1).u32(kPid).u64(30000);
  b.addRecord(trailer(exit, kPid + 1, 30000).finish());
  b.finishedRound();

  model::Profile p;
  auto out = import(b.file(), p);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_EQ(p.samples().size(), 15u);
  EXPECT_EQ(out->stats.lost, 7u);
  EXPECT_EQ(p.meta().lost_samples, 7u);
  EXPECT_EQ(p.meta().throttle_events, 1u);
  // Times count from the first sample; weights are the periods.
  EXPECT_EQ(p.samples().front().time_ns, 0u);
  EXPECT_EQ(p.meta().duration_ns, 11'000u - 2'000u);
  EXPECT_EQ(model::totals(p).weight, 15'000'000u);
  // Threads named by COMM (exec) and FORK.
  ASSERT_NE(p.findThread(kPid), nullptr);
  EXPECT_EQ(p.findThread(kPid)->name, "app");
  ASSERT_NE(p.findThread(kPid + 1), nullptr);
  EXPECT_EQ(p.findThread(kPid + 1)->name, "app");
  EXPECT_EQ(p.findThread(kPid + 1)->pid, static_cast<int32_t>(kPid));
  // The frames are named from this binary; the data mapping is no module.
  EXPECT_NEAR(100.0 * static_cast<double>(model::topTable(p, model::GroupBy::kFunction)[0].self) /
                  15'000'000.0,
              100.0, 0.01);
  EXPECT_EQ(model::topTable(p, model::GroupBy::kFunction)[0].function, "import_test_leaf");
  for (const model::Module& m : p.modules()) EXPECT_NE(p.str(m.path), "/var/data.bin");
  // The header, as the meta.
  const model::Meta& m = p.meta();
  EXPECT_EQ(m.event, "cpu-clock");
  EXPECT_EQ(m.frequency, 999u);
  EXPECT_EQ(m.call_graph, "fp");
  EXPECT_EQ(m.hostname, "build-7");
  EXPECT_EQ(m.kernel, "6.1.0-9-amd64");
  EXPECT_EQ(m.cpu, "Some CPU");
  EXPECT_EQ(m.command, (std::vector<std::string>{"./app", "input.txt"}));
  EXPECT_EQ(m.target, "command");
  EXPECT_EQ(m.source, "perf.data (perf 6.1.99): perf record -F 999 -g ./app input.txt");
  EXPECT_EQ(out->events, (std::vector<std::string>{"cpu-clock"}));
}

TEST_F(ImportTest, AnEventNotInTheFileIsAUsageError) {
  PerfDataBuilder b;
  b.addEvent(perfdata::testing::cpuClockAttr(kType), {1});
  model::Profile p;
  ImportOptions o;
  o.event = "cycles";
  auto out = import(b.file(), p, o);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().kind, ErrorKind::kUsage);
  EXPECT_EQ(out.error().message, "no event 'cycles' in " + dir_ + "/perf.data");
  EXPECT_EQ(out.error().hint, "its events: cpu-clock");
}

TEST(PerfTarget, ReadsPerfRecordsCommandLineAsPerfDoes) {
  auto t = perfTarget({"perf", "record", "-e", "cycles", "-F999", "--call-graph", "dwarf",
                       "--freq=99", "-o", "x.data", "./app", "-o", "y"});
  EXPECT_EQ(t.target, "command");
  EXPECT_EQ(t.command, (std::vector<std::string>{"./app", "-o", "y"}));
  t = perfTarget({"perf", "record", "-g", "--", "sh", "-c", "true"});
  EXPECT_EQ(t.command, (std::vector<std::string>{"sh", "-c", "true"}));
  t = perfTarget({"perf", "record", "-a", "-g", "--", "sleep", "1"});
  EXPECT_EQ(t.target, "system");
  EXPECT_TRUE(t.command.empty());
  t = perfTarget({"perf", "record", "-p", "12,34", "-g"});
  EXPECT_EQ(t.target, "pid 12,34");
  t = perfTarget({"perf", "record", "--pid=99"});
  EXPECT_EQ(t.target, "pid 99");
  EXPECT_EQ(perfTarget({}).target, "command");
}

// The build-id cache's layouts: .build-id/XX/REST linking to the copy's
// folder (with `elf` in it), and PATH/BUILD-ID/elf.
TEST_F(ImportTest, ModuleFilesAreFoundByBuildId) {
  auto self = symbolize::ElfFile::open("/proc/self/exe");
  ASSERT_TRUE(self.ok());
  const std::string id = self->buildId();
  ASSERT_FALSE(id.empty()) << "the test binary has no build-id";
  const std::string cache = dir_ + "/cache";
  const std::string gone = "/nonexistent/dir/app";
  // The copy's folder, and the link to it.
  const std::string folder = cache + gone + "/" + id;
  fs::create_directories(folder);
  fs::copy_file("/proc/self/exe", folder + "/elf");
  fs::create_directories(cache + "/.build-id/" + id.substr(0, 2));
  fs::create_symlink("../.." + gone + "/" + id,
                     cache + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2));
  ModuleFiles files(cache);
  EXPECT_EQ(files.locate(gone, id),
            cache + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + "/elf");
  // The file at its own path when it has the build-id.
  const std::string exe = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(files.locate(exe, id), exe);
  // Another build-id: not this file, and no copy.
  const std::string other(id.size(), 'a');
  EXPECT_EQ(files.locate(exe, other), "");
  EXPECT_EQ(files.locate("/nonexistent/other", ""), "");
  const auto missing = files.missing();
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_TRUE(std::any_of(missing.begin(), missing.end(), [&](const ModuleFiles::Missing& m) {
    return m.path == exe && m.changed && m.build_id == other;
  }));
  // The kernel's kallsyms copy.
  fs::create_directories(cache + "/[kernel.kallsyms]/" + other);
  std::ofstream(cache + "/[kernel.kallsyms]/" + other + "/kallsyms")
      << "ffffffff81000000 T _text\n";
  EXPECT_EQ(files.kallsyms(other), cache + "/[kernel.kallsyms]/" + other + "/kallsyms");
  fs::create_directories(cache + "/.build-id/aa");
  fs::create_symlink("../../[kernel.kallsyms]/" + other,
                     cache + "/.build-id/aa/" + other.substr(2));
  EXPECT_EQ(files.kallsyms(other), cache + "/.build-id/aa/" + other.substr(2) + "/kallsyms");
  RecordedKernel k{other, "9.9.9-not-this", 0, "_text"};
  EXPECT_EQ(kernelSymbols(k, files).path, files.kallsyms(other));
  k.build_id = std::string(40, 'b');
  const KernelSymbols none = kernelSymbols(k, files);
  EXPECT_EQ(none.path, "");
  EXPECT_EQ(none.note.rfind("kernel frames are unnamed: the recording's kernel (9.9.9-not-this, "
                            "build-id bbbb",
                            0),
            0u)
      << none.note;
}

}  // namespace
}  // namespace strobe::import
