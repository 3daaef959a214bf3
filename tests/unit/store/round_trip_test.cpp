// Writing a Profile and reading it back gives the same Profile, field by
// field; the file is a strobe recording SQL users can query.
#include <unistd.h>

#include <sqlite3.h>

#include <fstream>

#include "model/frames.hpp"
#include "model/measure.hpp"
#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

TEST_F(StoreTest, RoundTripKeepsEveryField) {
  model::Profile original = richProfile();
  ASSERT_TRUE(store::writeProfile(original, file("rec.db")));
  auto back = store::readProfile(file("rec.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  expectSameProfile(original, *back);
  // The inline chain and the module-less location, spelled out.
  EXPECT_EQ(back->locations()[2].lines.size(), 2u);
  EXPECT_EQ(back->locations().back().module, model::kNone);
  EXPECT_EQ(back->samples().back().weight, 1u);
}

TEST_F(StoreTest, RecordingWithoutStackEndColumnReadsAsNotJudged) {
  model::Profile original = richProfile();
  ASSERT_TRUE(store::writeProfile(original, file("old.db")));
  // A version-1 recording from before the column existed.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file("old.db").c_str(), &db), SQLITE_OK);
  EXPECT_EQ(
      sqlite3_exec(db, "ALTER TABLE samples DROP COLUMN stack_end", nullptr, nullptr, nullptr),
      SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto back = store::readProfile(file("old.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->samples().size(), original.samples().size());
  for (const model::Sample& s : back->samples()) {
    EXPECT_EQ(s.stack_end, model::StackEnd::kNotJudged);
  }
}

TEST_F(StoreTest, ALineKeepsItsFileAndVersionOneRecordingsStillRead) {
  model::Profile original = richProfile();
  ASSERT_TRUE(store::writeProfile(original, file("rec.db")));
  // Stored only where it is not the function's own file.
  EXPECT_EQ(querySql(file("rec.db"), "SELECT file FROM location_lines WHERE file != ''"),
            "/usr/include/c++/12/bits/vector.h");
  auto back = store::readProfile(file("rec.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->str(model::lineFile(*back, back->locations()[1].lines[0])),
            "/usr/include/c++/12/bits/vector.h");
  EXPECT_EQ(back->str(model::lineFile(*back, back->locations()[0].lines[0])), "/src/app/main.cpp");
  // The same recording as version 1 wrote it: no file per line.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file("rec.db").c_str(), &db), SQLITE_OK);
  const char* downgrade =
      "DROP VIEW leaf_functions; ALTER TABLE location_lines DROP COLUMN file; "
      "UPDATE meta SET value = '1' WHERE key = 'schema_version'; PRAGMA user_version = 1";
  EXPECT_EQ(sqlite3_exec(db, downgrade, nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto old = store::readProfile(file("rec.db"));
  ASSERT_TRUE(old.ok()) << old.error().describe();
  ASSERT_EQ(old->locations().size(), original.locations().size());
  EXPECT_EQ(old->locations()[1].lines[0].line, 25u);
  EXPECT_EQ(old->str(model::lineFile(*old, old->locations()[1].lines[0])), "/src/app/compute.cpp")
      << "version 1 knew only the function's file";
}

TEST_F(StoreTest, Version1RecordingReadsWithoutSpansAndRoles) {
  model::Profile original = richProfile();
  ASSERT_TRUE(store::writeProfile(original, file("v1.db")));
  // What strobe wrote before spans: no spans table, no role column, version 1.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file("v1.db").c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db,
                         "DROP TABLE spans; ALTER TABLE threads DROP COLUMN role;"
                         "DELETE FROM meta WHERE key = 'dropped_spans';"
                         "UPDATE meta SET value = '1' WHERE key = 'schema_version';"
                         "PRAGMA user_version = 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto back = store::readProfile(file("v1.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(back->spans().empty());
  EXPECT_EQ(back->meta().dropped_spans, 0u);
  ASSERT_EQ(back->samples().size(), original.samples().size());
  for (const model::Thread& t : back->threads()) EXPECT_EQ(t.role, "") << t.tid;
}

TEST_F(StoreTest, SpansAreQueryable) {
  ASSERT_TRUE(store::writeProfile(richProfile(), file("rec.db")));
  EXPECT_EQ(querySql(file("rec.db"),
                     "SELECT name || '@' || depth FROM spans WHERE tid = 4243 "
                     "ORDER BY start_ns LIMIT 1"),
            "request@0");
  EXPECT_EQ(querySql(file("rec.db"), "SELECT role FROM threads WHERE tid = 4243"), "worker 3");
}

// A version-1 recording (before samples had a kind): every sample is of its
// event's kind, so an old page-faults recording counts faults, not CPU time.
TEST_F(StoreTest, VersionOneRecordingsReadWithTheirEventsKind) {
  for (const char* event : {"cpu-clock", "page-faults", "wall-clock"}) {
    model::Profile original = richProfile();
    original.meta().event = event;
    std::erase_if(original.mutableSamples(),
                  [](const model::Sample& s) { return s.kind != model::SampleKind::kCpu; });
    original.meta().off_cpu = 0;
    ASSERT_TRUE(store::writeProfile(original, file("v1.db")));
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file("v1.db").c_str(), &db), SQLITE_OK);
    const char* to_v1 =
        "ALTER TABLE samples DROP COLUMN kind; ALTER TABLE samples DROP COLUMN off_cpu_reason;"
        "UPDATE meta SET value='1' WHERE key='schema_version'; PRAGMA user_version=1;";
    EXPECT_EQ(sqlite3_exec(db, "DROP VIEW leaf_functions", nullptr, nullptr, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, to_v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
    auto back = store::readProfile(file("v1.db"));
    ASSERT_TRUE(back.ok()) << back.error().describe();
    ASSERT_EQ(back->samples().size(), original.samples().size());
    const model::SampleKind want = model::kindOfEvent(event);
    for (const model::Sample& s : back->samples()) EXPECT_EQ(s.kind, want) << event;
  }
  EXPECT_EQ(model::kindOfEvent("page-faults"), model::SampleKind::kCount);
  EXPECT_EQ(model::kindOfEvent("wall-clock"), model::SampleKind::kWall);
}

TEST_F(StoreTest, RoundTripOfAnEmptyProfile) {
  model::Profile empty;
  ASSERT_TRUE(store::writeProfile(empty, file("empty.db")));
  auto back = store::readProfile(file("empty.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  expectSameProfile(empty, *back);
}

TEST_F(StoreTest, RoundTripOfManySamples) {
  model::Profile original = syntheticProfile(20'000);
  ASSERT_TRUE(store::writeProfile(original, file("big.db")));
  auto back = store::readProfile(file("big.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  expectSameProfile(original, *back);
}

TEST_F(StoreTest, AtomicWriteLeavesNoPartialFile) {
  ASSERT_TRUE(store::writeProfile(richProfile(), file("rec.db")));
  EXPECT_TRUE(std::filesystem::exists(file("rec.db")));
  EXPECT_FALSE(std::filesystem::exists(file("rec.db.partial")));
}

TEST_F(StoreTest, WriteReplacesAnExistingFileAndAStalePartial) {
  { std::ofstream(file("rec.db")) << "old contents"; }
  { std::ofstream(file("rec.db.partial")) << "left by a crash"; }
  ASSERT_TRUE(store::writeProfile(richProfile(), file("rec.db")));
  EXPECT_FALSE(std::filesystem::exists(file("rec.db.partial")));
  auto back = store::readProfile(file("rec.db"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  expectSameProfile(richProfile(), *back);
}

TEST_F(StoreTest, WriteToARelativePath) {
  std::string cwd = std::filesystem::current_path();
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  Status st = store::writeProfile(richProfile(), "here.db");
  ASSERT_EQ(::chdir(cwd.c_str()), 0);
  ASSERT_TRUE(st) << st.error().describe();
  EXPECT_TRUE(store::readProfile(file("here.db")).ok());
}

TEST_F(StoreTest, FileIsIdentifiedAndVersioned) {
  ASSERT_TRUE(store::writeProfile(richProfile(), file("rec.db")));
  EXPECT_EQ(querySql(file("rec.db"), "PRAGMA application_id"),
            std::to_string(store::kApplicationId));
  EXPECT_EQ(querySql(file("rec.db"), "PRAGMA user_version"), "2");
  EXPECT_EQ(querySql(file("rec.db"), "SELECT value FROM meta WHERE key='schema_version'"), "2");
  EXPECT_EQ(querySql(file("rec.db"), "SELECT value FROM meta WHERE key='start_time_utc'"),
            "2024-05-01T12:51:30.123Z");
  // The command is a JSON array SQLite itself can take apart.
  EXPECT_EQ(
      querySql(file("rec.db"), "SELECT json_extract(value, '$[3]') FROM meta WHERE key='command'"),
      "say \"hi\" 'there'");
}

// The queries docs/FORMAT.md shows, on the rich profile.
TEST_F(StoreTest, ViewsAnswerTheDocumentedQueries) {
  ASSERT_TRUE(store::writeProfile(richProfile(), file("rec.db")));
  const std::string db = file("rec.db");
  EXPECT_EQ(querySql(db,
                     "SELECT function FROM leaf_functions WHERE function IS NOT NULL "
                     "GROUP BY function ORDER BY sum(weight) DESC, function LIMIT 1"),
            "libc.so.6+0x2a1c9");
  // Unresolved leaves are named like the reports name them.
  EXPECT_EQ(querySql(db,
                     "SELECT DISTINCT function FROM leaf_functions WHERE file IS NULL "
                     "AND function IS NOT NULL ORDER BY function"),
            "[unknown]+0xdeadbeef\nlibc.so.6+0x2a1c9");
  EXPECT_EQ(querySql(db, "SELECT count(*) FROM leaf_functions WHERE function IS NULL"), "5");
  // The inlined helper is the innermost function of its location.
  EXPECT_EQ(querySql(db,
                     "SELECT DISTINCT function || ':' || line FROM leaf_functions "
                     "WHERE stack_id = 2"),
            "app::helper(int):7");
  // stack_frames walks leaf (depth 0) to root.
  EXPECT_EQ(querySql(db,
                     "SELECT group_concat(location_id, ',') FROM "
                     "(SELECT location_id FROM stack_frames WHERE stack_id = 4 ORDER BY depth)"),
            "5,3,2,1,0");
  EXPECT_EQ(querySql(db,
                     "SELECT t.name FROM samples s JOIN threads t USING (tid) "
                     "GROUP BY s.tid ORDER BY sum(s.weight) DESC LIMIT 1"),
            "worker 1");
  EXPECT_EQ(querySql(db,
                     "SELECT count(*) FROM samples GROUP BY time_ns / 1000000000 "
                     "ORDER BY time_ns / 1000000000"),
            "47");
  // One off-CPU interval per reason, and what each sample measures.
  EXPECT_EQ(querySql(db, "SELECT count(*) FROM samples WHERE kind = 1"), "6");
  EXPECT_EQ(querySql(db, "SELECT count(DISTINCT off_cpu_reason) FROM samples WHERE kind = 1"), "6");
  EXPECT_EQ(querySql(db, "SELECT count(*) FROM leaf_functions WHERE kind = 1"), "6");
}

}  // namespace
}  // namespace strobe::test
