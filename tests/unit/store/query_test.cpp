#include "store/query.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "store/store.hpp"
#include "store_test_util.hpp"
#include "synth_profile.hpp"

namespace strobe::store {
namespace {

class QueryTest : public test::StoreTest {
 protected:
  void SetUp() override {
    test::StoreTest::SetUp();
    ASSERT_TRUE(writeProfile(test::synthProfile(300, false), file("r.db")).ok());
  }
};

TEST_F(QueryTest, RowsWithTypesAndColumnNames) {
  std::vector<std::string> cols;
  std::vector<std::vector<Cell>> rows;
  QueryCallbacks cb;
  cb.columns = [&](const std::vector<std::string>& c) { cols = c; };
  cb.row = [&](const std::vector<Cell>& r) {
    rows.push_back(r);
    return true;
  };
  ASSERT_TRUE(runQuery(file("r.db"),
                       "SELECT tid, count(*) AS n, sum(weight) / 1e9 AS s, NULL AS z, "
                       "(SELECT name FROM threads t WHERE t.tid = samples.tid) AS name "
                       "FROM samples GROUP BY tid ORDER BY tid",
                       cb)
                  .ok());
  EXPECT_EQ(cols, (std::vector<std::string>{"tid", "n", "s", "z", "name"}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0].kind, Cell::Kind::kInteger);
  EXPECT_EQ(rows[0][0].integer, 1000);
  EXPECT_EQ(rows[0][1].integer, 100);
  EXPECT_EQ(rows[0][2].kind, Cell::Kind::kReal);
  EXPECT_EQ(rows[0][3].kind, Cell::Kind::kNull);
  EXPECT_EQ(rows[1][4].text, "worker-1");
}

TEST_F(QueryTest, IsReadOnlyAndReportsSqlErrors) {
  Status st = runQuery(file("r.db"), "DELETE FROM samples", {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "SQL error: attempt to write a readonly database");
  st = runQuery(file("r.db"), "SELEC 1", {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "SQL error: near \"SELEC\": syntax error");
  EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
  auto summary = readSummary(file("r.db"));
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->samples, 300u);
}

TEST_F(QueryTest, SummaryOfARecording) {
  auto s = readSummary(file("r.db"));
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->samples, 300u);
  EXPECT_EQ(s->command.front(), "/opt/synth/bin/synth");
  EXPECT_EQ(s->start_realtime_ns, 1'700'000'000'000'000'000ULL);
  EXPECT_GT(s->duration_ns, 0u);
}

TEST_F(QueryTest, RefusesOtherFiles) {
  std::ofstream(file("x.db")) << "not sqlite at all, just text that is long enough";
  EXPECT_FALSE(readSummary(file("x.db")).ok());
  auto missing = readSummary(file("none.db"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
}

}  // namespace
}  // namespace strobe::store
