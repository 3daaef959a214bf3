// Internal to src/store: checked access to the columns of the current row of
// a SQLite statement, for the reader. A value of the wrong type or out of
// range never reaches the model: the first problem is kept as text
// ("stack_id 99 is out of range (12 stacks)") and the getters return 0 /
// kNone from then on; the reader turns the problem into a kCorrupt error.
// Owns: the problem text; borrows the statement. Thread safety: one thread.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "model/profile.hpp"

namespace strobe::store {

// The largest value a 32-bit column of the schema holds.
inline constexpr int64_t kMaxU32 = UINT32_MAX;

// `s` for an error message: at most `max` bytes, control characters as '?'.
inline std::string printable(std::string s, size_t max = 40) {
  if (s.size() > max) s.resize(max);
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return s;
}

class RowView {
 public:
  explicit RowView(sqlite3_stmt* s) : s_(s) {}

  // An INTEGER in [lo, hi].
  int64_t integer(int col, const char* name, int64_t lo, int64_t hi) {
    // One column lookup, then the value's own accessors (the reader's
    // connection is single-threaded, so the unprotected value is safe).
    sqlite3_value* value = sqlite3_column_value(s_, col);
    if (sqlite3_value_type(value) != SQLITE_INTEGER) {
      note(std::string(name) + " is " + describe(col) + ", not an integer");
      return 0;
    }
    int64_t v = sqlite3_value_int64(value);
    if (v < lo || v > hi) {
      note(std::string(name) + " " + std::to_string(v) + " is out of range");
      return 0;
    }
    return v;
  }
  // Any 64-bit INTEGER, as the unsigned value it was written from.
  uint64_t u64(int col, const char* name) {
    return static_cast<uint64_t>(integer(col, name, INT64_MIN, INT64_MAX));
  }
  // An id into a table of `count` rows named `target`; NULL is kNone when
  // `nullable`.
  uint32_t id(int col, const char* name, uint64_t count, const char* target, bool nullable) {
    if (nullable && sqlite3_column_type(s_, col) == SQLITE_NULL) return model::kNone;
    int64_t v = integer(col, name, INT64_MIN, INT64_MAX);
    if (!problem_.empty()) return model::kNone;
    if (v < 0 || static_cast<uint64_t>(v) >= count) {
      note(std::string(name) + " " + std::to_string(v) + " is out of range (" +
           std::to_string(count) + " " + target + ")");
      return model::kNone;
    }
    return static_cast<uint32_t>(v);
  }
  // TEXT (a NULL reads as ""), bytes as stored.
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(s_, col);
    int n = sqlite3_column_bytes(s_, col);
    return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p), n);
  }

  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }
  void note(std::string p) {
    if (problem_.empty()) problem_ = std::move(p);
  }

 private:
  std::string describe(int col) const {
    switch (sqlite3_column_type(s_, col)) {
      case SQLITE_NULL:
        return "NULL";
      case SQLITE_FLOAT:
        return "a real number";
      case SQLITE_BLOB:
        return "a blob";
      default: {  // TEXT; appended, not "'" + ...: gcc 12 -O3 warns (-Wrestrict) on that
        std::string quoted(1, '\'');
        quoted += printable(text(col));
        quoted += '\'';
        return quoted;
      }
    }
  }

  sqlite3_stmt* s_;
  std::string problem_;
};

}  // namespace strobe::store
