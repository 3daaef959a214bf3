// End to end: frames in files that are not where their path says any more.
// A binary replaced or deleted while it runs is named from the copy strobe
// kept open (/proc/PID/map_files), and says so; vdso frames are named from
// the kernel's vdso image.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

namespace fs = std::filesystem;

class KeptFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }

  void touch(const std::string& name) const {
    std::FILE* f = std::fopen((dir_ + "/" + name).c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  bool waitFor(const std::string& name) const {
    for (int i = 0; i < 3000; ++i) {  // 30 s
      if (fs::exists(dir_ + "/" + name)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // Records a copy of the phases fixture; once it runs, `change` is applied
  // to the copy's file; then phase one runs and the fixture exits.
  Ran recordWhileChanging(void (*change)(const std::string& binary)) {
    const std::string binary = dir_ + "/phases";
    fs::copy_file(kFixtures + "fixture_phases", binary);
    const std::string out = dir_ + "/out";
    fs::create_directory(out);
    int pid = startProcess(
        {kStrobe, "record", "-F", "999", "-o", dir_ + "/rec.db", "--", binary, dir_}, out);
    EXPECT_TRUE(waitFor("ready"));
    change(binary);
    touch("go-1");
    EXPECT_TRUE(waitFor("done-1"));
    touch("go-2");
    touch("quit");
    return waitProcess(pid, out);
  }

  std::string dir_;
};

const char* const kKeptWarning =
    " was deleted or replaced during the run: named from the copy strobe kept open while it ran";

TEST_F(KeptFilesTest, ReplacedBinaryIsNamedFromTheCopyKeptOpen) {
  Ran r = recordWhileChanging([](const std::string& binary) {
    fs::remove(binary);  // a new inode under the same path, as a rebuild does
    fs::copy_file(kFixtures + "fixture_shares", binary);
  });
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(dir_ + "/phases" + kKeptWarning), std::string::npos) << r.err;
  model::Profile p = loadRecording(dir_ + "/rec.db");
  EXPECT_GT(selfShare(p, "phase_one()"), 35.0);
  EXPECT_GT(selfShare(p, "phase_two()"), 35.0);
}

TEST_F(KeptFilesTest, DeletedBinaryIsNamedFromTheCopyKeptOpen) {
  Ran r = recordWhileChanging([](const std::string& binary) { fs::remove(binary); });
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(dir_ + "/phases" + kKeptWarning), std::string::npos) << r.err;
  model::Profile p = loadRecording(dir_ + "/rec.db");
  EXPECT_GT(selfShare(p, "phase_one()") + selfShare(p, "phase_two()"), 80.0);
}

TEST_F(KeptFilesTest, VdsoFramesAreNamed) {
  for (const char* mode : {"fp", "dwarf"}) {
    SCOPED_TRACE(mode);
    Ran r = runProcess({kStrobe, "record", "-F", "999", "-g", mode, "-o", dir_ + "/vdso.db", "--",
                        kFixtures + "fixture_clock_loop", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    Ran rep = runProcess({kStrobe, "report", dir_ + "/vdso.db", "--top", "40"});
    ASSERT_EQ(rep.status, 0) << rep.err;
    model::Profile p = loadRecording(dir_ + "/vdso.db");
    const double total = static_cast<double>(model::totals(p).weight);
    double in_vdso = 0;
    for (const auto& row : model::topTable(p, model::GroupBy::kModule)) {
      if (row.function == "[vdso]") in_vdso = 100.0 * static_cast<double>(row.self) / total;
    }
    double under_entry = 0;
    // The vdso's entry point, under its public name (__vdso_clock_gettime's
    // alias clock_gettime, as reports prefer it), not libc's wrapper.
    for (const auto& row : model::topTable(p, model::GroupBy::kFunction)) {
      if (row.function == "clock_gettime" && row.module == "[vdso]") {
        under_entry = 100.0 * static_cast<double>(row.total) / total;
      }
    }
    EXPECT_GT(in_vdso, 60.0) << rep.out;
    // Named from the vdso's own symbol table.
    EXPECT_GT(under_entry, 5.0) << rep.out;
    if (std::string(mode) == "dwarf") {
      // Unwound through the vdso's CFI: its static helpers are called from
      // the entry point, and every stack goes on to main. (Frame pointers
      // skip the entry point: the vdso is built without them.)
      EXPECT_GT(under_entry, 60.0) << rep.out;
      bool main_on_top = false;
      for (const auto& row : model::topTable(p, model::GroupBy::kFunction)) {
        if (row.function == "main")
          main_on_top = 100.0 * static_cast<double>(row.total) / total > 90;
      }
      EXPECT_TRUE(main_on_top) << rep.out;
    }
  }
}

}  // namespace
}  // namespace strobe::test
