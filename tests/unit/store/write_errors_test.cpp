// writeProfile's failures: one-line messages with the path and a hint, no
// partial file left behind, an existing recording untouched.
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(StoreTest, WriteIntoAMissingDirectoryFails) {
  std::string dir = file("no/such/dir");
  std::string path = dir + "/rec.db";
  Status st = store::writeProfile(richProfile(), path);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "cannot write " + path + ": directory " + dir + " does not exist");
  EXPECT_EQ(st.error().hint,
            "create it first (mkdir -p " + dir + ") or choose another file with -o");
  EXPECT_EQ(st.error().describe().find('\n'), std::string::npos);
}

TEST_F(StoreTest, WriteUnderAFileFails) {
  { std::ofstream(file("plain")) << "x"; }
  std::string path = file("plain") + "/rec.db";
  Status st = store::writeProfile(richProfile(), path);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "cannot write " + path + ": " + file("plain") + " is not a directory");
}

// A file size limit (ulimit -f) stops the write with its own message.
TEST_F(StoreTest, FileSizeLimitRemovesThePartialFileAndKeepsTheOldRecording) {
  const std::string path = file("rec.db");
  { std::ofstream(path) << "the previous recording"; }
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 200'000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  Status st = store::writeProfile(syntheticProfile(50'000), path);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);

  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "cannot write " + path + ": the file would exceed the file size limit (ulimit -f)");
  EXPECT_EQ(st.error().hint, "raise the limit (ulimit -f unlimited), or write a smaller recording");
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_EQ(contents(path), "the previous recording");
}

// Enters private user and mount namespaces (as root, or through a user
// namespace) so the calling process may mount a tmpfs. False when the
// kernel or the container forbids it.
bool enterMountNamespace() {
  if (unshare(CLONE_NEWNS) != 0) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    auto put = [](const char* file, const std::string& text) {
      std::ofstream out(file);
      out << text;
      return static_cast<bool>(out.flush());
    };
    if (!put("/proc/self/setgroups", "deny") ||
        !put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
      return false;
    }
  }
  return mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

// A real ENOSPC: a 256 KiB tmpfs in a child process's own mount namespace.
TEST_F(StoreTest, DiskFullRemovesThePartialFileAndKeepsTheOldRecording) {
  const std::string small = file("small");
  const std::string path = small + "/rec.db";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    if (!enterMountNamespace() || mount("tmpfs", small.c_str(), "tmpfs", 0, "size=256k") != 0) {
      _exit(77);
    }
    { std::ofstream(path) << "the previous recording"; }
    Status st = store::writeProfile(syntheticProfile(50'000), path);
    std::string report =
        st ? std::string("ok\n\n") : st.error().message + "\n" + st.error().hint + "\n";
    report += std::filesystem::exists(path + ".partial") ? "partial left\n" : "no partial\n";
    report += contents(path);
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a small tmpfs here";
  EXPECT_EQ(report, "cannot write " + path +
                        ": the disk is full\n"
                        "free some space, or write the recording elsewhere with -o FILE\n"
                        "no partial\n"
                        "the previous recording");
}

// Root ignores directory permissions, so as root the write runs in a child
// that has become `nobody` (uid 65534) and reports back through a pipe.
TEST_F(StoreTest, WriteIntoAReadOnlyDirectoryFails) {
  std::string ro = file("ro");
  ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);  // nobody must reach ro/
  std::string path = ro + "/rec.db";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    if (geteuid() == 0 &&
        (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)) {
      _exit(77);
    }
    Status st = store::writeProfile(richProfile(), path);
    std::string report =
        st ? std::string("ok\n\n") : st.error().message + "\n" + st.error().hint + "\n";
    report += std::filesystem::exists(path + ".partial") ? "partial left\n" : "no partial\n";
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  chmod(ro.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "root cannot switch to uid 65534 here";
  EXPECT_EQ(report, "cannot write " + path +
                        ": permission denied\n"
                        "choose a writable directory with -o FILE, or fix its permissions\n"
                        "no partial\n");
}

}  // namespace
}  // namespace strobe::test
