// Helpers shared by the store's tests: a scratch directory per test, a
// hand-built Profile that exercises every field, a field-by-field comparison
// and raw SQL on a recording (to damage it on purpose).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "model/profile.hpp"

namespace strobe::test {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/strobe-store-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

// Runs `sql` on the database at `path`; fails the test on error.
inline void execSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string message = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message << " in: " << sql;
}

// The first column of each row of `sql`, as text joined by '\n'.
inline std::string querySql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "<open failed>";
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
    while (sqlite3_step(s) == SQLITE_ROW) {
      const auto* t = sqlite3_column_text(s, 0);
      if (!out.empty()) out += '\n';
      out += t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
    }
  } else {
    out = std::string("<error: ") + sqlite3_errmsg(db) + ">";
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// Every model feature: three modules, an inline chain, a location outside any
// module, a kernel address (high bit set), a 4-deep stack, an empty stack,
// threads added out of tid order, every Meta field.
model::Profile richProfile();

// A profile with `samples` samples over a handful of stacks, for size tests.
model::Profile syntheticProfile(size_t samples);

// Compares every field (strings by text, ids by value).
void expectSameProfile(const model::Profile& a, const model::Profile& b);

}  // namespace strobe::test
