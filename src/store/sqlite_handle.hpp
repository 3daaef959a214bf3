// Internal to src/store: RAII owners of a SQLite connection and a prepared
// statement, so every early return closes what it opened. Not installed and
// not included by store.hpp (SQLite is a private dependency).
//
// Owns: Db owns its sqlite3* (closed in the destructor, also after a failed
// open, as SQLite requires); Stmt owns its sqlite3_stmt* (finalized in the
// destructor). Both are move-only. Thread safety: one thread per object.
#pragma once

#include <sqlite3.h>

#include <string>
#include <utility>

namespace strobe::store {

class Db {
 public:
  Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() { sqlite3_close_v2(h_); }

  // Opens `path` with sqlite3_open_v2 `flags`; returns the SQLite result code.
  int open(const std::string& path, int flags) {
    return sqlite3_open_v2(path.c_str(), &h_, flags, nullptr);
  }
  int exec(const char* sql) { return sqlite3_exec(h_, sql, nullptr, nullptr, nullptr); }
  // Closes the connection now (as the destructor would).
  void close() {
    sqlite3_close_v2(h_);
    h_ = nullptr;
  }
  sqlite3* get() const { return h_; }
  // The last error's message; "out of memory" when there is no connection.
  std::string message() const { return h_ != nullptr ? sqlite3_errmsg(h_) : "out of memory"; }
  // errno of the last failed system call SQLite made, 0 when none.
  int systemErrno() const { return h_ != nullptr ? sqlite3_system_errno(h_) : 0; }

 private:
  sqlite3* h_ = nullptr;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(s_); }

  int prepare(const Db& db, const char* sql) {
    sqlite3_finalize(s_);
    s_ = nullptr;
    return sqlite3_prepare_v2(db.get(), sql, -1, &s_, nullptr);
  }
  sqlite3_stmt* get() const { return s_; }
  // Finalizes the statement now (as the destructor would).
  void finalize() {
    sqlite3_finalize(s_);
    s_ = nullptr;
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

}  // namespace strobe::store
