// writeProfile: builds the database in PATH.partial (journal and syncing off,
// one transaction, prepared statements), fsyncs it once, renames it over PATH.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "store/line_file.hpp"
#include "store/meta_codec.hpp"
#include "store/schema.hpp"
#include "store/sqlite_handle.hpp"
#include "store/store.hpp"
#include "store/write_errors.hpp"

namespace strobe::store {
namespace {

using model::kNone;

class Writer {
 public:
  // Writes `p` into `file`, a new database; errors name `path`.
  Writer(const model::Profile& p, const std::string& path, const std::string& file)
      : p_(p), path_(path), file_(file) {}

  Status write() {
    int rc = db_.open(file_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (rc != SQLITE_OK) return fail(rc);
    // The partial file is private until renamed: no journal, no syncs.
    // Page size must be set before the first table is created.
    const std::string pragmas =
        "PRAGMA page_size=" + std::to_string(kPageSize) +
        "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
        " PRAGMA cache_size=-131072; PRAGMA application_id=" +
        std::to_string(kApplicationId) + "; PRAGMA user_version=" + std::to_string(kSchemaVersion) +
        ";";
    if ((rc = db_.exec(pragmas.c_str())) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec("BEGIN")) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec(kCreateTablesSql)) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec(kCreateJitTablesSql)) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec(kCreateCodeTablesSql)) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec(kCreateViewsSql)) != SQLITE_OK) return fail(rc);
    if ((rc = writeRows()) != SQLITE_OK) return fail(rc);
    if ((rc = writeJitRows()) != SQLITE_OK) return fail(rc);
    if ((rc = db_.exec("COMMIT")) != SQLITE_OK) return fail(rc);
    return {};
  }

 private:
  Error fail(int rc) const { return sqliteWriteError(path_, file_, db_, rc); }

  // Binds the values of one row to `s` (by type), steps and resets it.
  template <typename... V>
  int insert(const Stmt& s, const V&... values) {
    sqlite3_stmt* st = s.get();
    int i = 0;
    (bind(st, ++i, values), ...);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  static void bind(sqlite3_stmt* st, int i, int64_t v) { sqlite3_bind_int64(st, i, v); }
  static void bind(sqlite3_stmt* st, int i, const std::string& v) {
    sqlite3_bind_text64(st, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
  }
  // An id, NULL when kNone.
  static void bind(sqlite3_stmt* st, int i, uint32_t id) {
    if (id == kNone) {
      sqlite3_bind_null(st, i);
    } else {
      sqlite3_bind_int64(st, i, id);
    }
  }
  // A value, NULL when absent.
  static void bind(sqlite3_stmt* st, int i, const std::optional<int64_t>& v) {
    if (v) {
      sqlite3_bind_int64(st, i, *v);
    } else {
      sqlite3_bind_null(st, i);
    }
  }
  // A blob; an empty one too (a null pointer would bind NULL).
  static void bind(sqlite3_stmt* st, int i, const std::vector<uint8_t>& v) {
    if (v.empty()) {
      sqlite3_bind_zeroblob(st, i, 0);
    } else {
      sqlite3_bind_blob64(st, i, v.data(), v.size(), SQLITE_STATIC);
    }
  }
  static int64_t u64(uint64_t v) { return static_cast<int64_t>(v); }  // same 64 bits

  int writeRows() {
    Stmt s;
    int rc = SQLITE_OK;
    auto ok = [&](int r) { return (rc = r) == SQLITE_OK; };
    auto prep = [&](const char* sql) { return ok(s.prepare(db_, sql)); };

    if (!prep("INSERT INTO meta VALUES(?,?)")) return rc;
    for (const auto& [key, value] : metaRows(p_.meta(), kSchemaVersion)) {
      if (!ok(insert(s, key, value))) return rc;
    }
    if (!prep("INSERT INTO modules VALUES(?,?,?)")) return rc;
    int64_t id = 0;
    for (const model::Module& m : p_.modules()) {
      if (!ok(insert(s, id++, p_.str(m.path), p_.str(m.build_id)))) return rc;
    }
    if (!prep("INSERT INTO functions VALUES(?,?,?,?,?)")) return rc;
    id = 0;
    for (const model::Function& f : p_.functions()) {
      if (!ok(insert(s, id++, p_.str(f.name), p_.str(f.system_name), p_.str(f.file),
                     int64_t{f.start_line}))) {
        return rc;
      }
    }
    if (!prep("INSERT INTO locations VALUES(?,?,?,?)")) return rc;
    id = 0;
    for (const model::Location& l : p_.locations()) {
      if (!ok(insert(s, id++, l.module, u64(l.address), u64(l.offset)))) return rc;
    }
    if (!prep("INSERT INTO location_lines VALUES(?,?,?,?,?)")) return rc;
    id = 0;
    for (const model::Location& l : p_.locations()) {
      int64_t depth = 0;
      for (const model::Line& line : l.lines) {
        const std::string& file = storedLineFile(p_, line);
        if (!ok(insert(s, id, depth++, line.function, int64_t{line.line}, file))) return rc;
      }
      ++id;
    }
    if (!prep("INSERT INTO stacks VALUES(?,?,?)")) return rc;
    id = 0;
    for (const model::StackNode& n : p_.stacks()) {
      if (!ok(insert(s, id++, n.parent, n.location))) return rc;
    }
    if (!prep("INSERT INTO samples VALUES(?,?,?,?,?,?,?,?)")) return rc;
    for (const model::Sample& x : p_.samples()) {
      if (!ok(insert(s, u64(x.time_ns), int64_t{x.tid}, int64_t{x.cpu}, x.stack, u64(x.weight),
                     static_cast<int64_t>(x.stack_end), static_cast<int64_t>(x.kind),
                     static_cast<int64_t>(x.off_cpu_reason)))) {
        return rc;
      }
    }
    if (!prep("INSERT INTO threads VALUES(?,?,?,?)")) return rc;
    for (const model::Thread& t : p_.threads()) {
      if (!ok(insert(s, int64_t{t.tid}, int64_t{t.pid}, t.name, t.role))) return rc;
    }
    if (!prep("INSERT INTO spans VALUES(?,?,?,?,?)")) return rc;
    for (const model::Span& x : p_.spans()) {
      if (!ok(insert(s, int64_t{x.tid}, u64(x.start_ns), u64(x.end_ns), p_.str(x.name),
                     int64_t{x.depth}))) {
        return rc;
      }
    }
    return writeCode(s);
  }

  int writeCode(Stmt& s) {
    int rc = SQLITE_OK;
    auto ok = [&](int r) { return (rc = r) == SQLITE_OK; };
    if (!ok(s.prepare(db_, "INSERT INTO code VALUES(?,?,?,?,?,?,?,?,?)"))) return rc;
    int64_t id = 0;
    for (const model::FunctionCode& c : p_.code()) {
      if (!ok(insert(s, id++, c.function, c.module, u64(c.offset), u64(c.address), u64(c.size),
                     c.arch, c.bytes, u64(c.checksum)))) {
        return rc;
      }
    }
    if (!ok(s.prepare(db_, "INSERT INTO code_lines VALUES(?,?,?,?)"))) return rc;
    id = 0;
    for (const model::FunctionCode& c : p_.code()) {
      for (const model::CodeLine& l : c.lines) {
        if (!ok(insert(s, id, int64_t{l.offset}, p_.str(l.file), int64_t{l.line}))) return rc;
      }
      ++id;
    }
    return SQLITE_OK;
  }

  // The JIT tables (see schema.hpp): every JitCode and its lines, the bytes
  // of those that frames of the profile lie in, the anonymous regions.
  int writeJitRows() {
    Stmt s;
    int rc = SQLITE_OK;
    auto ok = [&](int r) { return (rc = r) == SQLITE_OK; };
    auto prep = [&](const char* sql) { return ok(s.prepare(db_, sql)); };
    const std::vector<model::JitCode>& code = p_.jitCode();
    if (!prep("INSERT INTO jit_code VALUES(?,?,?,?,?,?,?,?,?)")) return rc;
    for (size_t i = 0; i < code.size(); ++i) {
      const model::JitCode& c = code[i];
      static constexpr const char* kSources[] = {"jitdump", "perf-map", "api"};
      const std::string source = kSources[static_cast<size_t>(c.source) % 3];
      if (!ok(insert(s, static_cast<int64_t>(i), int64_t{c.pid}, u64(c.start), u64(c.size),
                     c.load_ns,
                     c.unload_ns == model::kNeverUnloaded ? std::optional<int64_t>()
                                                          : std::optional<int64_t>(c.unload_ns),
                     p_.str(c.name), source, u64(c.module_offset)))) {
        return rc;
      }
    }
    if (!prep("INSERT INTO jit_lines VALUES(?,?,?,?)")) return rc;
    for (size_t i = 0; i < code.size(); ++i) {
      for (const model::JitLine& l : code[i].lines) {
        if (!ok(insert(s, static_cast<int64_t>(i), u64(l.offset), p_.str(l.file),
                       int64_t{l.line}))) {
          return rc;
        }
      }
    }
    std::vector<bool> sampled(code.size(), false);
    for (const model::Location& l : p_.locations()) {
      if (l.module == kNone || p_.str(p_.modules()[l.module].path) != model::kJitModule) continue;
      if (model::JitCodeId c = p_.jitCodeAt(l.offset); c != kNone) sampled[c] = true;
    }
    if (!prep("INSERT INTO jit_code_bytes VALUES(?,?)")) return rc;
    for (size_t i = 0; i < code.size(); ++i) {
      if (!sampled[i] || code[i].bytes.empty()) continue;
      sqlite3_bind_int64(s.get(), 1, static_cast<int64_t>(i));
      sqlite3_bind_blob64(s.get(), 2, code[i].bytes.data(), code[i].bytes.size(), SQLITE_STATIC);
      rc = sqlite3_step(s.get());
      sqlite3_reset(s.get());
      if (rc != SQLITE_DONE) return rc;
    }
    if (!prep("INSERT INTO anon_regions VALUES(?,?,?)")) return rc;
    for (const model::AnonRegion& r : p_.anonRegions()) {
      if (!ok(insert(s, int64_t{r.pid}, u64(r.start), u64(r.end)))) return rc;
    }
    return SQLITE_OK;
  }

  const model::Profile& p_;
  const std::string& path_;
  const std::string& file_;
  Db db_;
};

// One fsync so the rename never publishes a file whose data is not on disk.
Status syncFile(const std::string& file, const std::string& path) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (auto e = errnoError(path, err)) return *e;
    return writeError(path, "cannot sync " + file + ": " + std::strerror(err), kGenericHint);
  }
  ::close(fd);
  return {};
}

}  // namespace

Status writeProfile(const model::Profile& profile, const std::string& path) {
  if (auto st = checkDirectory(path); !st) return st;
  const std::string partial = path + ".partial";
  ::unlink(partial.c_str());  // a leftover from a crashed run; ENOENT is fine
  if (auto st = createFile(partial, path); !st) return st;
  Status st = [&]() -> Status {
    try {
      Writer w(profile, path, partial);
      return w.write();  // the connection closes here, before the rename
    } catch (const std::bad_alloc&) {
      return writeError(path, "out of memory", kGenericHint);
    }
  }();
  if (st) st = syncFile(partial, path);
  if (st && ::rename(partial.c_str(), path.c_str()) != 0) {
    st = writeError(path, "cannot rename " + partial + " to it: " + std::strerror(errno),
                    kGenericHint);
  }
  if (!st) ::unlink(partial.c_str());
  return st;
}

}  // namespace strobe::store
