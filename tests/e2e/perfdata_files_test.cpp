// End to end, perf.data as input beyond the recording modes: binaries
// deleted after recording and named from perf's build-id cache (acceptance
// 2), pipe mode and zstd-compressed records, a file cut off, `strobe
// import` (self-contained: annotate works once the binary is gone) and
// `strobe list`, JIT code (a runtime's jitdump, perf inject --jit, node's
// /tmp/perf-PID.map) and files with several events.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "perf_data_util.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kWork = {"work_six", "work_three", "work_one"};

using PerfDataFiles = PerfDataTest;

// Acceptance 2: the program is gone after recording; perf's build-id cache
// has it (perf buildid-cache, as perf record fills it), and strobe names
// its frames from there; without the cache strobe says what is unnamed.
TEST_F(PerfDataFiles, DeletedBinaryIsNamedFromTheBuildIdCache) {
  const std::string prog = path("prog");
  fs::copy_file(kShares, prog);
  // The build-ids come with the MMAP2 records: perf 6.1 often aborts when it
  // collects them at a run's end on newer kernels.
  Ran r = perf({"record", "-q", "--buildid-mmap", "-e", "cpu-clock", "-F", "999", "-g", "-o",
                path("p.data"), "--", prog, "100000", "250"});
  if (r.status != 0 && r.err.find("buildid-mmap") != std::string::npos) {
    GTEST_SKIP() << "this perf cannot record build-ids with the mappings: " << r.err;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  Ran cache = perf({"buildid-cache", "-a", prog});
  ASSERT_EQ(cache.status, 0) << cache.err;
  const Shares before = strobeShares(path("p.data"));
  ASSERT_TRUE(fs::remove(prog));

  const Shares after = strobeShares(path("p.data"));
  expectSharesAgree(before, after, kWork, 0.01);
  Ran rep = strobe({"report", path("p.data"), "--top", "3"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.err.find("strobe: warning: " + prog +
                         " is not on this machine as recorded: named from perf's build-id "
                         "cache (" +
                         home_ + "/.debug)"),
            std::string::npos)
      << rep.err;

  // Without the cache: the frames are module+offset, and the report says why.
  fs::remove_all(home_ + "/.debug");
  rep = strobe({"report", path("p.data"), "--top", "3"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_EQ(rep.out.find("work_six"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("prog+0x"), std::string::npos) << rep.out;
  EXPECT_NE(rep.err.find("strobe: warning: cannot symbolize " + prog + " (build-id "),
            std::string::npos)
      << rep.err;
  EXPECT_NE(rep.err.find("): it is not on this machine, and perf's build-id cache (" + home_ +
                         "/.debug) has no copy of it: its frames are unnamed (module+offset)"),
            std::string::npos)
      << rep.err;
}

TEST_F(PerfDataFiles, PipeModeAndCompressedRecords) {
  // perf record -o - | strobe report -, the stream kept by tee for perf report.
  Ran piped = runProcess({"/bin/sh", "-c",
                          "HOME='" + home_ + "' '" + perf_ +
                              "' record -q -B -e cpu-clock -F 999 -g -o - -- " + kShares +
                              " 100000 250 | tee '" + path("pipe.data") + "' | '" + kStrobe +
                              "' report - --format csv --top 0 --no-inline"});
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_NE(piped.out.find("work_six()"), std::string::npos) << piped.out;
  const Shares perf_pipe = perfShares(path("pipe.data"));
  expectSharesAgree(perf_pipe, strobeShares(path("pipe.data")), kWork);

  Ran r = record("z.data", {"-g", "-z"}, kSharesRun);
  ASSERT_EQ(r.status, 0) << r.err;
  expectSharesAgree(perfShares(path("z.data")), strobeShares(path("z.data")), kWork);
}

// The first record of more than a header that starts at or after byte
// `from` of a perf.data file's data section: its offset and size.
std::pair<uint64_t, uint64_t> recordWithABodyFrom(const std::string& file, uint64_t from) {
  std::ifstream in(file, std::ios::binary);
  auto u64At = [&](uint64_t at) {
    uint64_t v = 0;
    in.seekg(static_cast<std::streamoff>(at));
    in.read(reinterpret_cast<char*>(&v), sizeof v);
    return v;
  };
  // perf_file_header: magic, size, attr_size, attrs {offset, size}, then
  // data {offset, size}; each record starts {u32 type; u16 misc; u16 size}.
  const uint64_t data_end = u64At(40) + u64At(48);
  for (uint64_t at = u64At(40); at + 8 <= data_end;) {
    const uint16_t size = static_cast<uint16_t>(u64At(at) >> 48);
    if (size < 8) break;
    if (at >= from && size > 8) return {at, size};
    at += size;
  }
  return {0, 0};
}

TEST_F(PerfDataFiles, ACutOffFileIsReadUpToWhereItBroke) {
  Ran r = record("whole.data", {"-g"}, kSharesRun);
  ASSERT_EQ(r.status, 0) << r.err;
  // Cut in the middle of a record's body 60% of the way in: a cut on a
  // record's boundary, or inside its header, is told differently.
  const auto [at, size] =
      recordWithABodyFrom(path("whole.data"), fs::file_size(path("whole.data")) * 6 / 10);
  ASSERT_GT(size, 8u) << "no record with a body after 60% of the file";
  fs::copy_file(path("whole.data"), path("cut.data"));
  fs::resize_file(path("cut.data"), at + 8 + (size - 8) / 2);
  Ran rep = strobe({"report", path("cut.data"), "--format", "csv", "--top", "0"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.err.find(path("cut.data") + ": the file is cut off: its data should end at byte "),
            std::string::npos)
      << rep.err;
  EXPECT_NE(rep.err.find(" record at byte " + std::to_string(at) + " (" + std::to_string(size) +
                         " bytes) is cut off by the end of the data: the file is cut off there"),
            std::string::npos)
      << rep.err;
  EXPECT_NE(rep.err.find("strobe: warning: " + path("cut.data") +
                         " is cut off or damaged: this holds the "),
            std::string::npos)
      << rep.err;
  // What was read before the cut is reported, shares and all.
  const Shares whole = strobeShares(path("whole.data"));
  const Shares cut = strobeShares(path("cut.data"));
  expectSharesAgree(whole, cut, kWork, 6.0);
}

TEST_F(PerfDataFiles, ImportWritesASelfContainedRecording) {
  const std::string prog = path("prog");
  fs::copy_file(kShares, prog);
  Ran r = record("perf.data", {"-g"}, {prog, "100000", "250"});
  ASSERT_EQ(r.status, 0) << r.err;
  Ran imp = strobe({"import", path("perf.data"), "-o", path("imported.db")});
  ASSERT_EQ(imp.status, 0) << imp.err;
  EXPECT_NE(imp.err.find("strobe: imported " + path("perf.data") + " (cpu-clock, "),
            std::string::npos)
      << imp.err;
  model::Profile p = loadRecording(path("imported.db"));
  EXPECT_EQ(p.meta().event, "cpu-clock");
  EXPECT_EQ(p.meta().call_graph, "fp");
  EXPECT_EQ(p.meta().frequency, 999u);
  EXPECT_EQ(p.meta().source.rfind("perf.data (perf ", 0), 0u) << p.meta().source;
  EXPECT_FALSE(p.meta().hostname.empty());
  EXPECT_EQ(p.meta().command, (std::vector<std::string>{prog, "100000", "250"}));
  // The binary gone, the recording still names and annotates its code.
  const Shares before = strobeShares(path("perf.data"));
  ASSERT_TRUE(fs::remove(prog));
  expectSharesAgree(before, strobeShares(path("imported.db")), kWork, 0.01);
  Ran ann = strobe({"annotate", path("imported.db"), "work_six"});
  ASSERT_EQ(ann.status, 0) << ann.err;
  EXPECT_NE(ann.out.find("shares.cpp"), std::string::npos) << ann.out;
  // strobe list shows both, the perf.data by its magic.
  Ran list = strobe({"list", dir_});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("perf.data "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("imported.db "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(prog + " 100000 250"), std::string::npos) << list.out;
}

TEST_F(PerfDataFiles, SeveralEventsOneViewEach) {
  Ran r = perf({"record", "-q", "-B", "-e", "cpu-clock,task-clock", "-F", "999", "-g", "-o",
                path("two.data"), "--", kShares, "100000", "250"});
  ASSERT_EQ(r.status, 0) << r.err;
  Ran first = strobe({"report", path("two.data"), "--top", "3"});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.out.find("event: cpu-clock at 999 Hz"), std::string::npos) << first.out;
  EXPECT_NE(first.err.find(path("two.data") +
                           " holds several events: showing cpu-clock; --event task-clock for "
                           "another"),
            std::string::npos)
      << first.err;
  Ran second = strobe({"report", path("two.data"), "--event", "task-clock", "--top", "3"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("event: task-clock at 999 Hz"), std::string::npos) << second.out;
  expectSharesAgree(perfShares(path("two.data"), {}, "task-clock"),
                    strobeShares(path("two.data"), {"--event", "task-clock"}), kWork);
  expectSharesAgree(perfShares(path("two.data"), {}, "cpu-clock"), strobeShares(path("two.data")),
                    kWork);
  Ran none = strobe({"report", path("two.data"), "--event", "cycles"});
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err, "strobe: error: no event 'cycles' in " + path("two.data") +
                          "\n  hint: its events: cpu-clock, task-clock\n");
}

// A runtime's jitdump (libstrobe's JIT API writes one for perf too): named
// from the jit-PID.dump file the recording points at, and from perf
// inject --jit's jitted-PID-N.so files.
TEST_F(PerfDataFiles, JitCodeFromJitdumpAndPerfInject) {
  Ran r = runProcess({"/usr/bin/env", "HOME=" + home_, "STROBE_JITDUMP=" + dir_, perf_, "record",
                      "-q", "-B", "-k", "1", "-e", "cpu-clock", "-F", "999", "-g", "-o",
                      path("jit.data"), "--", kFixtures + "fixture_jit"});
  if (r.status == 77) GTEST_SKIP() << "the fixture cannot run here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string& data : {std::string("jit.data"), std::string("injected.data")}) {
    if (data == "injected.data") {
      Ran inj = runProcess({"/bin/sh", "-c",
                            "cd '" + dir_ + "' && HOME='" + home_ + "' '" + perf_ +
                                "' inject --jit -i jit.data -o injected.data"});
      ASSERT_EQ(inj.status, 0) << inj.err;
    }
    const Shares s = strobeShares(path(data));
    SCOPED_TRACE(data);
    ASSERT_EQ(s.count("jit_first_loop"), 1u);
    ASSERT_EQ(s.count("jit_second_loop"), 1u);
    EXPECT_GE(s.at("jit_first_loop"), 30.0);
    EXPECT_GE(s.at("jit_second_loop"), 30.0);
  }
}

// node --perf-basic-prof writes /tmp/perf-PID.map; perf report names the
// JIT code from it, and so does strobe.
TEST_F(PerfDataFiles, JitCodeFromAPerfMap) {
  Ran which = runProcess({"/bin/sh", "-c", "command -v node"});
  if (which.status != 0) {
    GTEST_SKIP() << "node is not installed (scripts/deps.sh test installs nodejs)";
  }
  const std::string script = path("hot.js");
  std::ofstream(script) << "function hotLoop(n) {\n"
                           "  let acc = 0;\n"
                           "  for (let i = 0; i < n; i++) acc = (acc + i * 7) % 1000003;\n"
                           "  return acc;\n"
                           "}\n"
                           "let t = 0;\n"
                           "const end = Date.now() + 1200;\n"
                           "while (Date.now() < end) t += hotLoop(100000);\n"
                           "console.log(t > 0 ? 'ok' : 'no');\n";
  Ran r = record("node.data", {"-g"}, {"node", "--perf-basic-prof", script});
  ASSERT_EQ(r.status, 0) << r.err;
  Ran rep = strobe({"report", path("node.data"), "--format", "csv", "--top", "3"});
  const Shares perf = perfShares(path("node.data"));
  const Shares ours = strobeShares(path("node.data"));
  // The map outlives the process; the test removes it.
  for (const auto& e : fs::directory_iterator("/tmp")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("perf-", 0) != 0 || e.path().extension() != ".map") continue;
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find(script) != std::string::npos) fs::remove(e.path());
  }
  std::string hot;
  for (const auto& [name, pct] : perf) {
    if (name.find("hotLoop") != std::string::npos && (hot.empty() || pct > perf.at(hot))) {
      hot = name;
    }
  }
  ASSERT_FALSE(hot.empty()) << "perf report names no hotLoop";
  ASSERT_EQ(ours.count(hot), 1u) << rep.out;
  EXPECT_NEAR(ours.at(hot), perf.at(hot), 1.5);
}

}  // namespace
}  // namespace strobe::test
