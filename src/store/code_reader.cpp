// readCode: the tables code and code_lines of a recording (schema 2), into
// a Profile readProfile already loaded. Each row is checked as readProfile
// checks its tables; the first problem fails the whole call and the profile
// keeps no code.
#include <new>

#include "model/code.hpp"
#include "store/row_view.hpp"
#include "store/schema.hpp"
#include "store/sqlite_handle.hpp"
#include "store/store.hpp"

namespace strobe::store {
namespace {

constexpr const char* kHint =
    "the recording's kept code is damaged; annotate needs it: record again";

class CodeReader {
 public:
  CodeReader(const std::string& path, model::Profile& p) : path_(path), p_(p) {}

  Result<bool> read() {
    if (db_.open(path_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX) != SQLITE_OK) {
      return makeError("cannot open " + path_ + ": " + db_.message(),
                       "check that the file is readable");
    }
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    int64_t version = 0;
    if (int rc = scalar("PRAGMA user_version", version); rc != SQLITE_OK) {
      return sqliteError(rc, "sqlite_schema");
    }
    if (version < 2) return false;
    for (const char* table : {"code", "code_lines"}) {
      int64_t n = 0;
      std::string sql =
          std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") + table +
          "'";
      if (int rc = scalar(sql.c_str(), n); rc != SQLITE_OK) return sqliteError(rc, table);
      if (n == 0) return damaged(std::string("table '") + table + "' is missing");
    }
    if (Status st = readCodeRows(); !st) return st.takeError();
    if (Status st = readLines(); !st) return st.takeError();
    // Only now is anything added to the profile.
    std::vector<model::StringId> ids(files_.size());
    for (size_t i = 0; i < files_.size(); ++i) ids[i] = p_.internString(files_[i]);
    for (model::FunctionCode& c : code_) {
      for (model::CodeLine& l : c.lines) l.file = ids[l.file];
      p_.addCode(std::move(c));
    }
    return true;
  }

 private:
  Error damaged(const std::string& what) const {
    return makeError(path_ + ": the kept code is damaged: " + what, kHint, ErrorKind::kCorrupt);
  }
  Error sqliteError(int rc, const char* table) const {
    int primary = rc & 0xFF;
    std::string what = db_.message() + " (reading table '" + table + "')";
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_ERROR) {
      return damaged(what);
    }
    return makeError("cannot read " + path_ + ": " + what, "check that the file is readable");
  }

  int scalar(const char* sql, int64_t& out) {
    Stmt s;
    int rc = s.prepare(db_, sql);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(s.get());
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
    out = sqlite3_column_int64(s.get(), 0);
    return SQLITE_OK;
  }

  template <typename F>
  Status forEachRow(const char* table, const char* sql, F&& f) {
    Stmt s;
    int rc = s.prepare(db_, sql);
    if (rc != SQLITE_OK) return sqliteError(rc, table);
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      RowView row(s.get());
      if (Status st = f(row, s.get()); !st) return st;
    }
    if (rc != SQLITE_DONE) return sqliteError(rc, table);
    return {};
  }

  Status readCodeRows() {
    const char* sql =
        "SELECT id, function_id, module_id, offset, address, size, arch, bytes, checksum "
        "FROM code ORDER BY id";
    return forEachRow("code", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      const uint64_t want = code_.size();
      model::FunctionCode c;
      int64_t id = r.integer(0, "id", 0, kMaxU32 - 1);
      c.function = r.id(1, "function_id", p_.functions().size(), "functions", true);
      c.module = r.id(2, "module_id", p_.modules().size(), "modules", false);
      c.offset = r.u64(3, "offset");
      c.address = r.u64(4, "address");
      c.size = static_cast<uint64_t>(r.integer(5, "size", 0, INT64_MAX));
      c.arch = r.text(6);
      c.checksum = r.u64(8, "checksum");
      int type = sqlite3_column_type(s, 7);
      if (r.ok() && type != SQLITE_BLOB) r.note("bytes is not a blob");
      // No recorder writes more: a larger blob is damage (or a hostile file).
      const auto length = static_cast<uint64_t>(sqlite3_column_bytes(s, 7));
      if (r.ok() && length > model::kMaxFunctionCodeBytes) {
        r.note("bytes holds " + std::to_string(length) +
               " bytes, more than strobe keeps of one "
               "function (" +
               std::to_string(model::kMaxFunctionCodeBytes) + ")");
      }
      if (r.ok() && static_cast<uint64_t>(id) != want) {
        r.note("id " + std::to_string(id) + " where " + std::to_string(want) +
               " was expected (ids run 0, 1, 2, ...)");
      }
      if (!r.ok()) return damaged("code row " + std::to_string(want) + ": " + r.problem());
      const auto* bytes = static_cast<const uint8_t*>(sqlite3_column_blob(s, 7));
      int n = sqlite3_column_bytes(s, 7);
      if (bytes != nullptr && n > 0) c.bytes.assign(bytes, bytes + n);
      code_.push_back(std::move(c));
      return {};
    });
  }

  Status readLines() {
    const char* sql = "SELECT code_id, offset, file, line FROM code_lines ORDER BY code_id, offset";
    return forEachRow("code_lines", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      uint32_t code = r.id(0, "code_id", code_.size(), "code rows", false);
      auto offset = static_cast<uint32_t>(r.integer(1, "offset", 0, kMaxU32));
      auto line = static_cast<uint32_t>(r.integer(3, "line", 0, kMaxU32));
      if (!r.ok()) {
        return damaged("code_lines row (code_id " + std::to_string(sqlite3_column_int64(s, 0)) +
                       ", offset " + std::to_string(sqlite3_column_int64(s, 1)) +
                       "): " + r.problem());
      }
      std::string file = r.text(2);
      if (files_.empty() || files_.back() != file) files_.push_back(std::move(file));
      code_[code].lines.push_back(
          model::CodeLine{offset, static_cast<model::StringId>(files_.size() - 1), line});
      return {};
    });
  }

  const std::string& path_;
  model::Profile& p_;
  Db db_;
  std::vector<model::FunctionCode> code_;
  std::vector<std::string> files_;  // CodeLine::file indexes this until read() ends
};

}  // namespace

Result<bool> readCode(const std::string& path, model::Profile& profile) {
  try {
    return CodeReader(path, profile).read();
  } catch (const std::bad_alloc&) {
    return makeError("cannot read the kept code of " + path + ": out of memory",
                     "free some memory");
  }
}

}  // namespace strobe::store
