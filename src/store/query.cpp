#include "store/query.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "store/meta_codec.hpp"
#include "store/sqlite_handle.hpp"
#include "store/store.hpp"

namespace strobe::store {
namespace {

Result<Db*> openChecked(const std::string& path, Db& db) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return makeError("no recording at " + path,
                       "run 'strobe record -- CMD' first, or name the file", ErrorKind::kNotFound);
    }
    return makeError("cannot read " + path + ": " + std::strerror(errno),
                     "check that the file is readable");
  }
  if (S_ISDIR(st.st_mode)) {
    return makeError(path + " is a directory, not a recording", "name the recording file",
                     ErrorKind::kUsage);
  }
  if (db.open(path, SQLITE_OPEN_READONLY) != SQLITE_OK) {
    return makeError("cannot open " + path + ": " + db.message(),
                     "check that the file is readable");
  }
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  Stmt s;
  int rc = s.prepare(db, "PRAGMA application_id");
  if (rc == SQLITE_OK) rc = sqlite3_step(s.get());
  if (rc != SQLITE_ROW || sqlite3_column_int64(s.get(), 0) != kApplicationId) {
    return makeError(path + " is not a strobe recording",
                     "strobe query and list read files written by strobe record",
                     ErrorKind::kCorrupt);
  }
  Stmt v;
  rc = v.prepare(db, "PRAGMA user_version");
  if (rc == SQLITE_OK) rc = sqlite3_step(v.get());
  int64_t version = rc == SQLITE_ROW ? sqlite3_column_int64(v.get(), 0) : 0;
  if (version > kSchemaVersion) {
    return makeError(path + " was written by a newer strobe (schema " + std::to_string(version) +
                         "); this strobe reads schemas " + std::to_string(kOldestSchemaVersion) +
                         " to " + std::to_string(kSchemaVersion),
                     "upgrade strobe to read it", ErrorKind::kUnsupported);
  }
  return &db;
}

// A failed prepare or step: the user's SQL (kUsage) unless SQLite found the
// file itself damaged (a corrupt schema, a malformed page), which no SQL
// can fix (kCorrupt, exit 1).
Error queryError(const std::string& path, const Db& db, int rc, const char* hint) {
  int primary = rc & 0xFF;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    return makeError(path + " is corrupt: " + db.message(),
                     "the recording is damaged (truncated or overwritten?); record it again",
                     ErrorKind::kCorrupt);
  }
  return makeError("SQL error: " + db.message(), hint, ErrorKind::kUsage);
}

}  // namespace

Status runQuery(const std::string& path, std::string_view sql, const QueryCallbacks& cb) {
  Db db;
  auto opened = openChecked(path, db);
  if (!opened) return opened.takeError();
  std::string text(sql);
  const char* at = text.c_str();
  std::vector<std::string> columns;
  std::vector<Cell> row;
  while (*at != '\0') {
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db.get(), at, -1, &raw, &tail);
    if (rc != SQLITE_OK) {
      return queryError(path, db, rc, "the tables and views are described in docs/FORMAT.md");
    }
    at = tail;
    if (raw == nullptr) continue;  // whitespace or a comment
    // Finalized on every path out of this iteration.
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } fin{raw};
    int n = sqlite3_column_count(raw);
    if (n > 0) {
      columns.clear();
      for (int i = 0; i < n; ++i) {
        const char* name = sqlite3_column_name(raw, i);
        columns.emplace_back(name != nullptr ? name : "");
      }
      if (cb.columns) cb.columns(columns);
    }
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      row.assign(static_cast<size_t>(n), Cell{});
      for (int i = 0; i < n; ++i) {
        Cell& c = row[static_cast<size_t>(i)];
        switch (sqlite3_column_type(raw, i)) {
          case SQLITE_INTEGER:
            c.kind = Cell::Kind::kInteger;
            c.integer = sqlite3_column_int64(raw, i);
            break;
          case SQLITE_FLOAT:
            c.kind = Cell::Kind::kReal;
            c.real = sqlite3_column_double(raw, i);
            break;
          case SQLITE_NULL:
            break;
          default: {
            c.kind = Cell::Kind::kText;
            const void* p = sqlite3_column_blob(raw, i);
            int len = sqlite3_column_bytes(raw, i);
            if (p != nullptr) c.text.assign(static_cast<const char*>(p), static_cast<size_t>(len));
          }
        }
      }
      if (cb.row && !cb.row(row)) return {};
    }
    if (rc != SQLITE_DONE) {
      return queryError(path, db, rc, "queries are read-only; see docs/FORMAT.md for the tables");
    }
  }
  return {};
}

Result<RecordingSummary> readSummary(const std::string& path) {
  Db db;
  auto opened = openChecked(path, db);
  if (!opened) return opened.takeError();
  RecordingSummary out;
  model::Meta meta;
  Stmt s;
  if (s.prepare(db, "SELECT key, value FROM meta") != SQLITE_OK) {
    return makeError(path + " is corrupt: " + db.message(), "record it again", ErrorKind::kCorrupt);
  }
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    auto text = [&](int i) {
      const unsigned char* t = sqlite3_column_text(s.get(), i);
      return std::string(t != nullptr ? reinterpret_cast<const char*>(t) : "");
    };
    (void)applyMetaRow(meta, text(0), text(1));
  }
  out.command = meta.command;
  out.target = meta.target;
  out.start_realtime_ns = meta.start_realtime_ns;
  out.duration_ns = meta.duration_ns;
  out.incomplete = meta.incomplete != 0;
  Stmt c;
  if (c.prepare(db, "SELECT count(*) FROM samples") != SQLITE_OK ||
      sqlite3_step(c.get()) != SQLITE_ROW) {
    return makeError(path + " is corrupt: " + db.message(), "record it again", ErrorKind::kCorrupt);
  }
  out.samples = static_cast<uint64_t>(sqlite3_column_int64(c.get(), 0));
  return out;
}

}  // namespace strobe::store
