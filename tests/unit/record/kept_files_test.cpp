// KeptFiles with real processes: this test and a forked child map the same
// file (the test program), as two profiled processes do.
#include "record/kept_files.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "record/proc.hpp"

namespace strobe::record {
namespace {

class KeptFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    ASSERT_GT(n, 0);
    exe_.assign(buf, static_cast<size_t>(n));
    auto maps = readMaps(::getpid());
    ASSERT_TRUE(maps.ok()) << maps.error().describe();
    for (const ProcMapping& m : *maps) {
      if (m.path == exe_ && m.exec) mapping_ = m;
    }
    ASSERT_EQ(mapping_.path, exe_) << "no executable mapping of " << exe_;
    child_ = ::fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  void TearDown() override {
    if (child_ > 0) {
      ::kill(child_, SIGKILL);
      ::waitpid(child_, nullptr, 0);
    }
  }
  void map(KeptFiles& kept, pid_t pid, const std::string& build_id) const {
    kept.onMapping(pid, mapping_.start, mapping_.end, exe_, build_id);
  }

  std::string exe_;
  ProcMapping mapping_;
  pid_t child_ = -1;
};

TEST_F(KeptFilesTest, AFileIsClosedWhenTheLastProcessMappingItIsForgotten) {
  KeptFiles kept;
  map(kept, ::getpid(), "b1");
  if (kept.pathFor(exe_, "b1").empty()) {
    GTEST_SKIP() << "/proc/PID/map_files cannot be opened here (it needs CAP_SYS_ADMIN): "
                    "nothing is kept";
  }
  map(kept, child_, "b1");
  EXPECT_EQ(kept.size(), 1u);
  const std::string path = kept.pathFor(exe_, "b1");
  Fd own = kept.dupFor(exe_, "b1");
  ASSERT_TRUE(own.valid());
  EXPECT_NE("/proc/self/fd/" + std::to_string(own.get()), path);

  kept.forgetProcess(::getpid());
  EXPECT_EQ(kept.pathFor(exe_, "b1"), path);  // the child maps it still
  kept.forgetProcess(child_);
  EXPECT_EQ(kept.size(), 0u);
  EXPECT_EQ(kept.pathFor(exe_, "b1"), "");
  EXPECT_FALSE(kept.dupFor(exe_, "b1").valid());

  // The duplicate outlives the kept copy and names the same file.
  struct stat a {
  }, b{};
  ASSERT_EQ(::fstat(own.get(), &a), 0);
  ASSERT_EQ(::stat(exe_.c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(a.st_dev, b.st_dev);

  // A process seen mapping it later keeps it again.
  map(kept, child_, "b1");
  EXPECT_FALSE(kept.pathFor(exe_, "b1").empty());
}

TEST_F(KeptFilesTest, ForgettingMakesRoomUnderTheBound) {
  KeptFiles kept(1);
  map(kept, ::getpid(), "b1");
  if (kept.pathFor(exe_, "b1").empty()) {
    GTEST_SKIP() << "/proc/PID/map_files cannot be opened here (it needs CAP_SYS_ADMIN): "
                    "nothing is kept";
  }
  map(kept, child_, "b2");  // another (path, build-id): over the bound
  EXPECT_EQ(kept.pathFor(exe_, "b2"), "");
  kept.forgetProcess(child_);  // it kept nothing
  EXPECT_EQ(kept.size(), 1u);
  kept.forgetProcess(::getpid());
  map(kept, child_, "b2");
  EXPECT_FALSE(kept.pathFor(exe_, "b2").empty());
  EXPECT_EQ(kept.size(), 1u);
}

}  // namespace
}  // namespace strobe::record
