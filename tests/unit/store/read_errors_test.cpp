// readProfile on files that are not (intact) strobe recordings: one-line
// messages, word for word, and never a crash.
#include <unistd.h>

#include <fstream>
#include <vector>

#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

const char* const kCorruptHint =
    "the recording is damaged (truncated or overwritten?); record it again";
const char* const kNotStrobeHint = "name a recording written by 'strobe record'";

class ReadErrorTest : public StoreTest {
 protected:
  // A valid recording, to be damaged by the test.
  std::string recording(size_t samples = 0) {
    std::string path = file("rec.db");
    model::Profile p = samples == 0 ? richProfile() : syntheticProfile(samples);
    EXPECT_TRUE(store::writeProfile(p, path));
    return path;
  }
  // Reads `path` and expects exactly this error.
  void expectError(const std::string& path, const std::string& message, const std::string& hint,
                   ErrorKind kind) {
    auto r = store::readProfile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, message);
    EXPECT_EQ(r.error().hint, hint);
    EXPECT_EQ(r.error().kind, kind);
    EXPECT_EQ(r.error().describe().find('\n'), std::string::npos) << "one line";
  }
  void expectCorrupt(const std::string& path, const std::string& what) {
    expectError(path, path + " is corrupt: " + what, kCorruptHint, ErrorKind::kCorrupt);
  }
};

TEST_F(ReadErrorTest, MissingFile) {
  std::string path = file("missing.db");
  expectError(path, "no recording at " + path,
              "run 'strobe record -- CMD' first, or name the file: strobe report FILE",
              ErrorKind::kNotFound);
}

TEST_F(ReadErrorTest, MissingDirectory) {
  std::string path = file("nodir/rec.db");
  expectError(path, "no recording at " + path,
              "run 'strobe record -- CMD' first, or name the file: strobe report FILE",
              ErrorKind::kNotFound);
}

TEST_F(ReadErrorTest, Directory) {
  expectError(dir_, dir_ + " is a directory, not a recording",
              "name the recording file: strobe report FILE", ErrorKind::kGeneric);
}

TEST_F(ReadErrorTest, EmptyFile) {
  std::string path = file("empty.db");
  { std::ofstream out(path); }
  expectError(path, path + " is empty, not a strobe recording", kNotStrobeHint,
              ErrorKind::kCorrupt);
}

TEST_F(ReadErrorTest, NotASqliteDatabase) {
  std::string path = file("notes.txt");
  { std::ofstream(path) << std::string(5000, 'x') << "\nnot a database at all\n"; }
  expectError(path, path + " is not a strobe recording (not an SQLite database)", kNotStrobeHint,
              ErrorKind::kCorrupt);
}

TEST_F(ReadErrorTest, AnotherProgramsSqliteDatabase) {
  std::string path = file("other.db");
  execSql(path, "CREATE TABLE samples(x); INSERT INTO samples VALUES(1);");
  expectError(path, path + " is not a strobe recording (an SQLite database of another program)",
              kNotStrobeHint, ErrorKind::kCorrupt);
}

TEST_F(ReadErrorTest, NewerSchema) {
  std::string path = recording();
  execSql(path, "PRAGMA user_version = 3");
  expectError(path,
              path + " was written by a newer strobe (schema 3); this strobe reads schemas 1 to 2",
              "upgrade strobe to read it", ErrorKind::kUnsupported);
}

TEST_F(ReadErrorTest, UnknownOlderSchema) {
  std::string path = recording();
  execSql(path, "PRAGMA user_version = 0");
  expectError(path, path + " has an unknown schema version 0; this strobe reads schemas 1 to 2",
              kCorruptHint, ErrorKind::kCorrupt);
}

TEST_F(ReadErrorTest, MissingTable) {
  std::string path = recording();
  execSql(path, "DROP TABLE stacks");
  expectCorrupt(path, "table 'stacks' is missing");
}

TEST_F(ReadErrorTest, MissingColumn) {
  std::string path = recording();
  execSql(path, "DROP VIEW leaf_functions; ALTER TABLE samples DROP COLUMN weight");
  expectCorrupt(path, "table 'samples' lacks a column (no such column: weight)");
}

TEST_F(ReadErrorTest, StackParentOutOfRange) {
  std::string path = recording();
  execSql(path, "UPDATE stacks SET parent_id = 99 WHERE id = 3");
  expectCorrupt(path, "stacks row 3: parent_id 99 is out of range (3 earlier stacks)");
}

TEST_F(ReadErrorTest, StackParentCycle) {
  std::string path = recording();
  execSql(path, "UPDATE stacks SET parent_id = 4 WHERE id = 1");
  expectCorrupt(path, "stacks row 1: parent_id 4 is out of range (1 earlier stacks)");
}

TEST_F(ReadErrorTest, StackLocationOutOfRange) {
  std::string path = recording();
  execSql(path, "UPDATE stacks SET location_id = 50 WHERE id = 0");
  expectCorrupt(path, "stacks row 0: location_id 50 is out of range (7 locations)");
}

TEST_F(ReadErrorTest, SampleStackOutOfRange) {
  std::string path = recording();
  execSql(path, "UPDATE samples SET stack_id = 1000 WHERE rowid = 5");
  expectCorrupt(path, "samples row 5: stack_id 1000 is out of range (7 stacks)");
}

TEST_F(ReadErrorTest, SampleTidNotAnInteger) {
  std::string path = recording();
  execSql(path, "UPDATE samples SET tid = 'main\nthread' WHERE rowid = 2");
  expectCorrupt(path, "samples row 2: tid is 'main?thread', not an integer");
}

// Weights and times are never negative ...
TEST_F(ReadErrorTest, NegativeWeightOrTime) {
  std::string path = recording();
  execSql(path, "UPDATE samples SET weight = -1 WHERE rowid = 3");
  expectCorrupt(path, "samples row 3: weight -1 is out of range");
  path = recording();
  execSql(path, "UPDATE samples SET time_ns = -5 WHERE rowid = 4");
  expectCorrupt(path, "samples row 4: time_ns -5 is out of range");
}

// ... and add up to an int64 at most, so that no sum over samples (totals,
// shares, pprof's int64 values) overflows: every weight INT64_MAX once gave
// 50/50 shares for a 1009:1 split.
TEST_F(ReadErrorTest, WeightsThatOverflowTheirSum) {
  std::string path = recording(1010);
  execSql(path, "UPDATE samples SET weight = 9223372036854775807");
  expectCorrupt(path, "samples row 2: the weights add up to more than 9223372036854775807");
  // One huge weight alone is fine.
  path = recording(1010);
  execSql(path,
          "UPDATE samples SET weight = 0; UPDATE samples SET weight = 9223372036854775807 "
          "WHERE rowid = 7");
  auto r = store::readProfile(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->samples()[6].weight, 9223372036854775807ULL);
}

TEST_F(ReadErrorTest, LocationModuleOutOfRange) {
  std::string path = recording();
  execSql(path, "UPDATE locations SET module_id = 3 WHERE id = 1");
  expectCorrupt(path, "locations row 1: module_id 3 is out of range (3 modules)");
}

TEST_F(ReadErrorTest, LocationLinesWithAGap) {
  std::string path = recording();
  execSql(path, "UPDATE location_lines SET depth = 2 WHERE location_id = 2 AND depth = 1");
  expectCorrupt(path,
                "location_lines row (location_id 2, depth 2): depths must run 0, 1, 2, ... "
                "without gaps");
}

TEST_F(ReadErrorTest, IdsNotDense) {
  std::string path = recording();
  execSql(path, "DELETE FROM functions WHERE id = 1");
  expectCorrupt(path, "functions row 2: id 2 where 1 was expected (ids run 0, 1, 2, ...)");
}

TEST_F(ReadErrorTest, DuplicateModule) {
  std::string path = recording();
  execSql(path, "UPDATE modules SET path = '/opt/app/bin/app', build_id = 'abcd1234' WHERE id = 1");
  expectCorrupt(path, "modules row 1: duplicates an earlier module");
}

TEST_F(ReadErrorTest, BadMetaValue) {
  std::string path = recording();
  execSql(path, "UPDATE meta SET value = '12x' WHERE key = 'duration_ns'");
  expectCorrupt(path, "meta key 'duration_ns': not a 64-bit unsigned integer");
  execSql(path,
          "UPDATE meta SET value = '12' WHERE key = 'duration_ns';"
          "UPDATE meta SET value = '[\"a\", b]' WHERE key = 'command'");
  expectCorrupt(path, "meta key 'command': not a JSON array of strings");
}

TEST_F(ReadErrorTest, SpanEndingBeforeItStarts) {
  std::string path = recording();
  execSql(path, "UPDATE spans SET end_ns = 5 WHERE name = 'request'");
  expectCorrupt(path, "spans row 1: end_ns is before start_ns");
}

TEST_F(ReadErrorTest, SpanOfTheWrongType) {
  std::string path = recording();
  execSql(path, "UPDATE spans SET depth = 'deep' WHERE name = 'request'");
  expectCorrupt(path, "spans row 1: depth is 'deep', not an integer");
}

TEST_F(ReadErrorTest, Version2WithoutSpans) {
  std::string path = recording();
  execSql(path, "DROP TABLE spans");
  expectCorrupt(path, "table 'spans' is missing");
}

TEST_F(ReadErrorTest, DuplicateThread) {
  std::string path = recording();
  // Without its PRIMARY KEY the table accepts a second row for tid 4242.
  execSql(path,
          "CREATE TABLE t2 AS SELECT * FROM threads; DROP TABLE threads;"
          "CREATE TABLE threads(tid, pid, name, role); INSERT INTO threads SELECT * FROM t2;"
          "INSERT INTO threads VALUES(4242, 1, 'twin', '')");
  expectCorrupt(path, "threads row 5: tid 4242 repeats");
}

// Cutting a recording short anywhere gives an error, never a crash.
TEST_F(ReadErrorTest, TruncatedFileIsAnError) {
  std::string path = recording(20'000);
  const auto size = static_cast<off_t>(std::filesystem::file_size(path));
  ASSERT_GT(size, 100'000);
  for (off_t cut : {size - 1, size / 2, off_t{16384}, off_t{4096}, off_t{100}, off_t{50}}) {
    std::string copy = file("cut-" + std::to_string(cut) + ".db");
    std::filesystem::copy_file(path, copy);
    ASSERT_EQ(::truncate(copy.c_str(), cut), 0);
    auto r = store::readProfile(copy);
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt) << r.error().message;
    EXPECT_EQ(r.error().message.rfind(copy + " is ", 0), 0u) << r.error().message;
  }
}

// Garbage written over the middle of a recording gives an error, never a crash.
TEST_F(ReadErrorTest, OverwrittenMiddleIsAnError) {
  std::string path = recording(20'000);
  const auto size = static_cast<std::streamoff>(std::filesystem::file_size(path));
  for (unsigned char fill : {0x00, 0x5a, 0xff}) {
    std::string copy = file("garbled-" + std::to_string(fill) + ".db");
    std::filesystem::copy_file(path, copy);
    {
      std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(size / 2 - 20'000);
      std::vector<char> junk(40'000, static_cast<char>(fill));
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    auto r = store::readProfile(copy);
    ASSERT_FALSE(r.ok()) << "fill " << int{fill};
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt) << r.error().message;
    EXPECT_EQ(r.error().describe().find('\n'), std::string::npos);
  }
}

// Bytes of a small recording flipped one at a time: readProfile may succeed
// (the byte was a value) or fail, but it returns.
TEST_F(ReadErrorTest, FlippedBytesNeverCrash) {
  std::string path = recording();
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string copy = file("flipped.db");
  // Every byte of the 100-byte SQLite header, then a sample of the rest.
  for (size_t i = 0; i < bytes.size(); i += i < 100 ? 1 : 331) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(~damaged[i]);
    {
      std::ofstream out(copy, std::ios::binary | std::ios::trunc);
      out << damaged;
    }
    auto r = store::readProfile(copy);
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
    }
  }
}

}  // namespace
}  // namespace strobe::test
