// libstrobe's C and C++ API as a program linked with libstrobe.so uses it:
// spans and roles in the process's own session, snapshots while running,
// output to memory and to a FILE*, the native recording (.db), the movable
// strobe::Session, and the event and kernel options. Recordings are read
// back with `strobe query` (this binary must not link a second SQLite next
// to libstrobe's).
#include <gtest/gtest.h>
#include <unistd.h>
#include <strobe/strobe.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

namespace {

volatile uint64_t g_sink;

__attribute__((noinline)) void burnMs(int ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  uint64_t x = g_sink | 1;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 10000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  g_sink = x;
}

class LibraryApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("strobe-api-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (strobe_running()) strobe_stop();
    std::filesystem::remove_all(dir_);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  static strobe_options fast() {
    strobe_options o;
    strobe_options_init(&o);
    o.frequency = 999;
    return o;
  }
  std::filesystem::path dir_;
};

// `strobe query DB SQL --no-header`: one line per row, columns as strobe prints them.
std::string query(const std::string& db, const std::string& sql) {
  std::string cmd = std::string(STROBE_BINARY_DIR) + "/strobe query --no-header '" + db + "' \"" +
                    sql + "\" 2>&1";
  std::string out;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

uint64_t count(const std::string& db, const std::string& sql) {
  return std::strtoull(query(db, sql).c_str(), nullptr, 10);
}

TEST_F(LibraryApi, SnapshotAndSampleCountWhileRunning) {
  strobe_options o = fast();
  ASSERT_EQ(strobe_start(&o), 0) << strobe_last_error();
  burnMs(300);
  const uint64_t so_far = strobe_sample_count();
  EXPECT_GT(so_far, 50u);  // ~300 at 999 Hz
  ASSERT_EQ(strobe_snapshot(file("snap.db").c_str(), nullptr), 0) << strobe_last_error();
  EXPECT_EQ(strobe_running(), 1);
  const uint64_t snapped = count(file("snap.db"), "SELECT count(*) FROM samples");
  EXPECT_GE(snapped, so_far);
  burnMs(200);
  ASSERT_EQ(strobe_stop(), 0);
  EXPECT_GT(strobe_sample_count(), snapped);
  // A snapshot without a running session is the last profile.
  ASSERT_EQ(strobe_snapshot(file("last.txt").c_str(), nullptr), 0) << strobe_last_error();
  std::ifstream in(file("last.txt"));
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "recording: libstrobe");
}

TEST_F(LibraryApi, OutputToMemoryAndToAFile) {
  strobe_options o = fast();
  ASSERT_EQ(strobe_start(&o), 0) << strobe_last_error();
  burnMs(200);
  ASSERT_EQ(strobe_stop(), 0);
  void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(strobe_write_mem("pprof", &data, &size), 0) << strobe_last_error();
  ASSERT_GT(size, 2u);
  EXPECT_EQ(static_cast<unsigned char*>(data)[0], 0x1f);  // gzip
  EXPECT_EQ(static_cast<unsigned char*>(data)[1], 0x8b);
  std::free(data);
  ASSERT_EQ(strobe_write_mem("db", &data, &size), 0) << strobe_last_error();
  ASSERT_GT(size, 16u);
  EXPECT_EQ(std::memcmp(data, "SQLite format 3", 16), 0);
  {
    std::ofstream out(file("mem.db"), std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::free(data);
  EXPECT_GT(count(file("mem.db"), "SELECT count(*) FROM samples"), 0u);
  std::FILE* f = std::fopen(file("out.folded").c_str(), "w");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(strobe_write_file(f, "folded"), 0) << strobe_last_error();
  std::fclose(f);
  std::ifstream in(file("out.folded"));
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("burnMs"), std::string::npos) << line;
  EXPECT_EQ(strobe_write_mem("nope", &data, &size), -1);
  EXPECT_NE(std::string(strobe_last_error()).find("unknown format 'nope'"), std::string::npos);
  EXPECT_EQ(strobe_write_file(nullptr, "text"), -1);
}

TEST_F(LibraryApi, SpansAndRolesOfTheSessionGoIntoTheRecording) {
  strobe_span_begin("before");  // begun before the session: not recorded
  strobe_options o = fast();
  ASSERT_EQ(strobe_start(&o), 0) << strobe_last_error();
  strobe_span_end();
  std::atomic<int> tid{0};
  std::thread worker([&] {
    tid = static_cast<int>(gettid());
    STROBE_THREAD_ROLE("worker", 7);
    for (int i = 0; i < 3; ++i) {
      STROBE_SPAN("request");
      strobe::Span inner("parse");
      burnMs(20);
    }
    // Deeper than libstrobe keeps: counted, not recorded.
    for (int d = 0; d < 70; ++d) strobe_span_begin("deep");
    for (int d = 0; d < 70; ++d) strobe_span_end();
  });
  worker.join();
  ASSERT_EQ(strobe_stop(), 0);
  EXPECT_EQ(strobe_dropped_spans(), 6u);
  const std::string db = file("x.db");
  ASSERT_EQ(strobe_write(db.c_str(), nullptr), 0) << strobe_last_error();
  const std::string t = std::to_string(tid.load());
  EXPECT_EQ(query(db, "SELECT count(*) FROM spans WHERE name = 'request' AND depth = 0 AND tid = " +
                          t + " AND end_ns - start_ns >= 19000000"),
            "3");
  EXPECT_EQ(query(db, "SELECT count(*) FROM spans WHERE name = 'parse' AND depth = 1 AND tid = " +
                          t + " AND end_ns - start_ns >= 19000000"),
            "3");
  EXPECT_EQ(query(db, "SELECT count(*), min(depth), max(depth) FROM spans WHERE name = 'deep'"),
            query(db, "SELECT 64, 0, 63"));
  EXPECT_EQ(query(db, "SELECT count(*) FROM spans WHERE name = 'before'"), "0");
  EXPECT_EQ(query(db, "SELECT role FROM threads WHERE tid = " + t), "worker 7");
  EXPECT_EQ(query(db, "SELECT value FROM meta WHERE key = 'dropped_spans'"), "6");
}

strobe::Session makeSession() {
  strobe::Options o;
  o.frequency = 999;
  return strobe::Session(o);  // moved out of the factory
}

TEST_F(LibraryApi, SessionIsMovable) {
  strobe::Session s = makeSession();
  EXPECT_TRUE(s.running());
  strobe::Session t = std::move(s);
  EXPECT_FALSE(s.running());  // NOLINT(bugprone-use-after-move): moved-from owns nothing
  EXPECT_TRUE(t.running());
  EXPECT_EQ(strobe_running(), 1);
  burnMs(100);
  std::string text = t.bytes("text");
  EXPECT_EQ(strobe_running(), 0);
  EXPECT_NE(text.find("burnMs"), std::string::npos);
  // Moved back into a moved-from (stopped) Session: it owns the running one.
  strobe::Session u = makeSession();
  strobe::Session v = std::move(u);
  u = std::move(v);
  EXPECT_TRUE(u.running());
  EXPECT_FALSE(v.running());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(strobe_running(), 1);
  u.stop();
  EXPECT_EQ(strobe_running(), 0);
}

TEST_F(LibraryApi, EventAndKernelOptions) {
  strobe_options o = fast();
  o.event = "task-clock";
  ASSERT_EQ(strobe_start(&o), 0) << strobe_last_error();
  burnMs(100);
  ASSERT_EQ(strobe_stop(), 0);
  ASSERT_EQ(strobe_write(file("task.db").c_str(), nullptr), 0);
  EXPECT_EQ(query(file("task.db"), "SELECT value FROM meta WHERE key = 'event'"), "task-clock");

  o.event = "no-such-event";
  EXPECT_EQ(strobe_start(&o), -1);
  EXPECT_NE(std::string(strobe_last_error()).find("no-such-event"), std::string::npos)
      << strobe_last_error();

  o.event = "page-faults";
  o.engine = STROBE_ENGINE_TIMER;
  EXPECT_EQ(strobe_start(&o), -1);
  EXPECT_EQ(std::string(strobe_last_error()).substr(0, 50),
            std::string("the timer engine samples CPU time, not page-faults").substr(0, 50));

  o = fast();
  o.kernel = 1;
  o.engine = STROBE_ENGINE_TIMER;
  EXPECT_EQ(strobe_start(&o), -1);
  EXPECT_EQ(std::string(strobe_last_error()).rfind("kernel frames need the perf engine", 0), 0u)
      << strobe_last_error();

  // A hardware event: sampled where the machine has one, else a clear
  // refusal (never a silent fallback to the timer engine).
  o = fast();
  o.event = "cycles";
  if (strobe_start(&o) == 0) {
    EXPECT_STREQ(strobe_engine_name(), "perf");
    strobe_stop();
  } else {
    std::string e = strobe_last_error();
    EXPECT_TRUE(e.find("cycles") != std::string::npos || e.find("PMU") != std::string::npos) << e;
  }
}

TEST_F(LibraryApi, KernelFramesWithThePerfEngine) {
  strobe_options o = fast();
  o.kernel = 1;
  o.engine = STROBE_ENGINE_PERF;
  if (strobe_start(&o) != 0) {
    GTEST_SKIP() << "the kernel refuses kernel sampling here: " << strobe_last_error();
  }
  // Time in system calls.
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 1000; ++i) (void)::getppid();
  }
  ASSERT_EQ(strobe_stop(), 0);
  ASSERT_EQ(strobe_write(file("k.db").c_str(), nullptr), 0);
  EXPECT_GT(
      count(file("k.db"), "SELECT count(*) FROM leaf_functions WHERE module = '[kernel.kallsyms]'"),
      0u)
      << "no sample has a kernel leaf frame";
}

}  // namespace
