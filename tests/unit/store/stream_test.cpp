// RecordingStream: a recording written while it grows reads back as the
// Profile it was fed (marked incomplete), also when the writing process dies
// without finishing it (the SQLite WAL beside it), and its write errors are
// writeProfile's.
#include "store/stream.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

namespace fs = std::filesystem;

// The first `samples` samples of `full`, with every table it needs so far:
// what a recorder's Profile looks like partway through.
model::Profile prefix(const model::Profile& full, size_t samples) {
  model::Profile p = full;
  p.mutableSamples().resize(std::min(samples, full.samples().size()));
  return p;
}

void waitForBatches(const store::RecordingStream& s, uint64_t n) {
  for (int i = 0; i < 500 && s.stats().batches < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST_F(StoreTest, StreamedRecordingReadsBackAsTheProfile) {
  const std::string path = file("rec.db");
  model::Profile full = richProfile();
  auto stream = store::RecordingStream::create(path);
  ASSERT_TRUE(stream.ok()) << stream.error().describe();
  // Read before anything is appended: an empty, incomplete recording.
  model::Profile empty;
  (*stream)->append(empty, empty.meta());
  waitForBatches(**stream, 1);
  auto early = store::readProfile(path);
  ASSERT_TRUE(early.ok()) << early.error().describe();
  EXPECT_EQ(early->meta().incomplete, 1u);
  EXPECT_TRUE(early->samples().empty());

  // Threads renamed between appends keep their rows (and order).
  model::Profile half = prefix(full, full.samples().size() / 2);
  half.setThread({full.threads().front().tid, full.threads().front().pid, "old name"});
  (*stream)->append(half, half.meta());
  (*stream)->append(full, full.meta());
  ASSERT_TRUE((*stream)->finish().ok());
  EXPECT_FALSE(fs::exists(path + "-wal")) << "finish() folds the WAL in";
  auto back = store::readProfile(path);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  model::Profile want = full;
  want.meta().incomplete = 1;
  expectSameProfile(want, *back);
  const store::StreamStats st = (*stream)->stats();
  EXPECT_EQ(st.batches, 3u);
  EXPECT_EQ(st.samples, full.samples().size());
}

// A writer that dies (as under SIGKILL: no finish(), no destructors) leaves
// PATH, PATH-wal and PATH-shm; they read as the batches committed.
TEST_F(StoreTest, StreamOfAKilledWriterReadsBackUpToItsLastBatch) {
  const std::string path = file("rec.db");
  model::Profile full = syntheticProfile(20'000);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto stream = store::RecordingStream::create(path);
    if (!stream.ok()) _exit(2);
    (*stream)->append(prefix(full, 5'000), full.meta());
    (*stream)->append(prefix(full, 12'000), full.meta());
    waitForBatches(**stream, 2);
    _exit((*stream)->stats().batches == 2 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::exists(path + "-wal"));
  auto back = store::readProfile(path);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->meta().incomplete, 1u);
  model::Profile want = prefix(full, 12'000);
  want.meta().incomplete = 1;
  expectSameProfile(want, *back);
}

TEST_F(StoreTest, StreamIntoAMissingDirectoryFailsLikeWriteProfile) {
  const std::string dir = file("no/such");
  auto stream = store::RecordingStream::create(dir + "/rec.db");
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.error().message,
            "cannot write " + dir + "/rec.db: directory " + dir + " does not exist");
}

TEST_F(StoreTest, DiscardedStreamLeavesNothing) {
  const std::string path = file("rec.db");
  auto stream = store::RecordingStream::create(path);
  ASSERT_TRUE(stream.ok());
  (*stream)->append(richProfile(), richProfile().meta());
  (*stream)->discard();
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace strobe::test
