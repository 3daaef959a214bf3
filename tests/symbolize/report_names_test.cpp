// End to end: `strobe record` a fixture, then `strobe report` names its
// frames: from .symtab and DWARF normally; from .dynsym when the binary is
// stripped (and module+0xOFFSET for what no table names); JIT code from the
// process's /tmp/perf-PID.map.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "run_process.hpp"

namespace strobe::test {
namespace {

class ReportNamesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override {
    removeTree(dir_);
    // The fixture's perf-PID.map files (JITs leave them for profilers to read).
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/tmp", ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind("perf-", 0) != 0 || e.path().extension() != ".map") continue;
      if (readFile(e.path().string()).find("jit_spin_loop [JIT] tier1") != std::string::npos) {
        std::filesystem::remove(e.path(), ec);
      }
    }
  }

  // Records `fixture` and returns `strobe report --top 40`'s output.
  std::string recordAndReport(const std::string& fixture) {
    std::string db = dir_ + "/rec.db";
    Ran rec = runProcess({STROBE_EXE, "record", "-F", "499", "-o", db, "--", fixture});
    if (rec.status != 0 && rec.err.find("perf_event") != std::string::npos) {
      skip_ = "perf_event refused here: " + rec.err;
      return {};
    }
    EXPECT_EQ(rec.status, 0) << rec.err;
    Ran rep = runProcess({STROBE_EXE, "report", db, "--top", "40"});
    EXPECT_EQ(rep.status, 0) << rep.err;
    return rep.out;
  }

  std::string dir_;
  std::string skip_;
};

TEST_F(ReportNamesTest, SymbolsDwarfAndJit) {
  std::string out = recordAndReport(SYMFIX_BURN);
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  EXPECT_NE(out.find("staticBurn"), std::string::npos) << out;
  EXPECT_NE(out.find("exportedBurn"), std::string::npos) << out;
  EXPECT_NE(out.find("burn_fixture.cpp"), std::string::npos) << out;
#if defined(__x86_64__)
  EXPECT_NE(out.find("jit_spin_loop"), std::string::npos) << out;
#endif
}

TEST_F(ReportNamesTest, StrippedBinaryFallsBackToDynsymThenOffsets) {
  std::string out = recordAndReport(SYMFIX_BURN_STRIPPED);
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  EXPECT_NE(out.find("exportedBurn"), std::string::npos) << out;  // in .dynsym (-rdynamic)
  EXPECT_EQ(out.find("staticBurn"), std::string::npos) << out;    // in no table left
  EXPECT_NE(out.find("symfix_burn_stripped+0x"), std::string::npos) << out;
}

}  // namespace
}  // namespace strobe::test
