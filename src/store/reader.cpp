// readProfile: checks that PATH is a strobe recording of a schema this strobe
// reads, then loads each table in id order through the Profile's intern
// functions, validating every reference before it reaches the model.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <unordered_set>

#include "base/mmap.hpp"
#include "model/measure.hpp"
#include "store/meta_codec.hpp"
#include "store/row_view.hpp"
#include "store/schema.hpp"
#include "store/sqlite_handle.hpp"
#include "store/store.hpp"

namespace strobe::store {
namespace {

constexpr const char* kCorruptHint =
    "the recording is damaged (truncated or overwritten?); record it again";
constexpr const char* kNotStrobeHint = "name a recording written by 'strobe record'";

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  Result<model::Profile> read() {
    Status st = open();
    if (st) st = checkIdentity();
    if (st) st = checkSize();
    if (st) st = checkTables();
    if (st) st = readMeta();
    if (st) st = readModules();
    if (st) st = readFunctions();
    if (st) st = readLocations();
    if (st) st = readLocationLines();
    if (st) st = readStacks();
    if (st) st = readSamples();
    if (st) st = readThreads();
    if (st) st = readJit();
    if (st) st = readSpans();
    if (!st) return st.takeError();
    return std::move(p_);
  }

 private:
  Error corrupt(const std::string& what) const {
    return makeError(path_ + " is corrupt: " + what, kCorruptHint, ErrorKind::kCorrupt);
  }
  Error rowError(const char* table, int64_t row, const std::string& what) const {
    return corrupt(std::string(table) + " row " + std::to_string(row) + ": " + what);
  }
  // A failed SQLite call while reading `table`; `preparing` when the
  // statement itself failed to compile.
  Error sqliteError(int rc, const char* table, bool preparing = false) const {
    std::string where = std::string(" (reading table '") + table + "')";
    int primary = rc & 0xFF;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      return corrupt(db_.message() + where);
    }
    if (preparing && primary == SQLITE_ERROR) {  // the table lacks a column the query names
      return corrupt(std::string("table '") + table + "' lacks a column (" + db_.message() + ")");
    }
    return makeError("cannot read " + path_ + ": " + db_.message() + where,
                     "check that the file is readable");
  }

  // Runs `sql`, calling f(RowView&, sqlite3_stmt*) -> Status for each row.
  template <typename F>
  Status forEachRow(const char* table, const char* sql, F&& f) {
    Stmt s;
    int rc = s.prepare(db_, sql);
    if (rc != SQLITE_OK) return sqliteError(rc, table, true);
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      RowView row(s.get());
      if (Status st = f(row, s.get()); !st) return st;
    }
    if (rc != SQLITE_DONE) return sqliteError(rc, table);
    return {};
  }

  Status open() {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return makeError("no recording at " + path_,
                         "run 'strobe record -- CMD' first, or name the file: strobe report FILE",
                         ErrorKind::kNotFound);
      }
      return makeError("cannot read " + path_ + ": " + std::strerror(errno),
                       "check that the file is readable");
    }
    if (S_ISDIR(st.st_mode)) {
      return makeError(path_ + " is a directory, not a recording",
                       "name the recording file: strobe report FILE");
    }
    if (::access(path_.c_str(), R_OK) != 0) {
      return makeError("cannot read " + path_ + ": " + std::strerror(errno),
                       "check the file's permissions");
    }
    size_ = static_cast<int64_t>(st.st_size);
    if (st.st_size == 0) {
      return makeError(path_ + " is empty, not a strobe recording", kNotStrobeHint,
                       ErrorKind::kCorrupt);
    }
    // One thread reads through this connection: no SQLite mutexes.
    int rc = db_.open(path_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    if (rc != SQLITE_OK) {
      return makeError("cannot open " + path_ + ": " + db_.message(),
                       "check that the file is readable");
    }
    // A hostile file must not run arbitrary SQL functions from its schema.
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    return {};
  }

  // Reads one integer from a PRAGMA; rc is the SQLite result.
  int pragma(const char* sql, int64_t& out) {
    Stmt s;
    int rc = s.prepare(db_, sql);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(s.get());
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
    out = sqlite3_column_int64(s.get(), 0);
    return SQLITE_OK;
  }

  Status checkIdentity() {
    int64_t app = 0;
    int64_t version = 0;
    int rc = pragma("PRAGMA application_id", app);
    if (rc == SQLITE_OK) rc = pragma("PRAGMA user_version", version);
    if ((rc & 0xFF) == SQLITE_NOTADB) {
      return makeError(path_ + " is not a strobe recording (not an SQLite database)",
                       kNotStrobeHint, ErrorKind::kCorrupt);
    }
    if (rc != SQLITE_OK) return sqliteError(rc, "sqlite_schema");
    if (app != kApplicationId) {
      return makeError(path_ + " is not a strobe recording (an SQLite database of another program)",
                       kNotStrobeHint, ErrorKind::kCorrupt);
    }
    const std::string ours = "this strobe reads schemas " + std::to_string(kOldestSchemaVersion) +
                             " to " + std::to_string(kSchemaVersion);
    if (version > kSchemaVersion) {
      return makeError(path_ + " was written by a newer strobe (schema " + std::to_string(version) +
                           "); " + ours,
                       "upgrade strobe to read it", ErrorKind::kUnsupported);
    }
    if (version < kOldestSchemaVersion) {
      return makeError(
          path_ + " has an unknown schema version " + std::to_string(version) + "; " + ours,
          kCorruptHint, ErrorKind::kCorrupt);
    }
    version_ = static_cast<int>(version);
    return {};
  }

  // SQLite files are whole pages long, and SQLite itself rejects a file
  // shorter than the page count in its header; a cut inside the last page
  // would otherwise read as zeros.
  Status checkSize() {
    int64_t page_size = 0;
    if (int rc = pragma("PRAGMA page_size", page_size); rc != SQLITE_OK) {
      return sqliteError(rc, "sqlite_schema");
    }
    if (page_size <= 0 || size_ % page_size != 0) {
      return corrupt("its size (" + std::to_string(size_) + " bytes) is not a whole number of " +
                     std::to_string(page_size) + "-byte pages");
    }
    return {};
  }

  Status checkTables() {
    std::unordered_set<std::string> present;
    Status st = forEachRow("sqlite_schema", "SELECT name FROM sqlite_master WHERE type='table'",
                           [&](RowView& r, sqlite3_stmt*) -> Status {
                             present.insert(r.text(0));
                             return {};
                           });
    if (!st) return st;
    for (const char* t : kTables) {
      if (present.count(t) == 0) return corrupt(std::string("table '") + t + "' is missing");
    }
    for (const char* t : kTablesSince2) {
      if (version_ >= 2 && present.count(t) == 0) {
        return corrupt(std::string("table '") + t + "' is missing");
      }
    }
    return {};
  }

  Status readMeta() {
    return forEachRow("meta", "SELECT key, value FROM meta", [&](RowView& r, auto) -> Status {
      std::string key = r.text(0);
      std::string value = r.text(1);
      if (key == "schema_version" && value != std::to_string(version_)) {
        return corrupt("meta schema_version '" + printable(value) +
                       "' disagrees with PRAGMA user_version " + std::to_string(version_));
      }
      if (auto problem = applyMetaRow(p_.meta(), key, value)) {
        return corrupt("meta key '" + printable(key) + "': " + *problem);
      }
      return {};
    });
  }

  // Ids run 0, 1, 2, ... in every id table; `expected` is the next one.
  Status checkId(RowView& r, const char* table, uint64_t expected) const {
    int64_t id = r.integer(0, "id", 0, kMaxU32 - 1);
    if (!r.ok()) return rowError(table, static_cast<int64_t>(expected), r.problem());
    if (static_cast<uint64_t>(id) != expected) {
      return rowError(table, id,
                      "id " + std::to_string(id) + " where " + std::to_string(expected) +
                          " was expected (ids run 0, 1, 2, ...)");
    }
    return {};
  }

  Status readModules() {
    return forEachRow("modules", "SELECT id, path, build_id FROM modules ORDER BY id",
                      [&](RowView& r, auto) -> Status {
                        uint64_t want = p_.modules().size();
                        if (Status st = checkId(r, "modules", want); !st) return st;
                        if (p_.internModule(r.text(1), r.text(2)) != want) {
                          return rowError("modules", want, "duplicates an earlier module");
                        }
                        return {};
                      });
  }

  Status readFunctions() {
    const char* sql = "SELECT id, name, system_name, file, start_line FROM functions ORDER BY id";
    return forEachRow("functions", sql, [&](RowView& r, auto) -> Status {
      uint64_t want = p_.functions().size();
      if (Status st = checkId(r, "functions", want); !st) return st;
      auto start_line = static_cast<uint32_t>(r.integer(4, "start_line", 0, kMaxU32));
      if (!r.ok()) return rowError("functions", want, r.problem());
      if (p_.internFunction(r.text(1), r.text(2), r.text(3), start_line) != want) {
        return rowError("functions", want, "duplicates an earlier function");
      }
      return {};
    });
  }

  Status readLocations() {
    const char* sql = "SELECT id, module_id, address, offset FROM locations ORDER BY id";
    return forEachRow("locations", sql, [&](RowView& r, auto) -> Status {
      uint64_t want = p_.locations().size();
      if (Status st = checkId(r, "locations", want); !st) return st;
      model::ModuleId module = r.id(1, "module_id", p_.modules().size(), "modules", true);
      uint64_t address = r.u64(2, "address");
      uint64_t offset = r.u64(3, "offset");
      if (!r.ok()) return rowError("locations", want, r.problem());
      if (p_.internLocation(module, offset, address) != want) {
        return rowError("locations", want, "duplicates an earlier location");
      }
      return {};
    });
  }

  Status readLocationLines() {
    // Version 1 had no file per line: its lines read as in their function's
    // file (a line in another file was stored as 0).
    const char* sql =
        version_ >= 2 ? "SELECT location_id, depth, function_id, line, file FROM location_lines "
                        "ORDER BY location_id, depth"
                      : "SELECT location_id, depth, function_id, line, '' FROM location_lines "
                        "ORDER BY location_id, depth";
    auto& locations = p_.mutableLocations();
    return forEachRow("location_lines", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      model::LocationId loc = r.id(0, "location_id", locations.size(), "locations", false);
      int64_t depth = r.integer(1, "depth", 0, kMaxU32);
      model::FunctionId fn = r.id(2, "function_id", p_.functions().size(), "functions", true);
      auto line = static_cast<uint32_t>(r.integer(3, "line", 0, kMaxU32));
      if (r.ok() && static_cast<uint64_t>(depth) != locations[loc].lines.size()) {
        r.note("depths must run 0, 1, 2, ... without gaps");
      }
      if (!r.ok()) {
        return corrupt("location_lines row (location_id " +
                       std::to_string(sqlite3_column_int64(s, 0)) + ", depth " +
                       std::to_string(sqlite3_column_int64(s, 1)) + "): " + r.problem());
      }
      locations[loc].lines.push_back(model::Line{fn, line, p_.internString(r.text(4))});
      return {};
    });
  }

  Status readStacks() {
    int64_t count = 0;
    if (int rc = pragma("SELECT count(*) FROM stacks", count); rc != SQLITE_OK) {
      return sqliteError(rc, "stacks");
    }
    p_.reserveStacks(static_cast<size_t>(std::min<int64_t>(count, kMaxU32)));
    const char* sql = "SELECT id, parent_id, location_id FROM stacks ORDER BY id";
    return forEachRow("stacks", sql, [&](RowView& r, auto) -> Status {
      uint64_t want = p_.stacks().size();
      if (Status st = checkId(r, "stacks", want); !st) return st;
      // A parent is always an earlier node, which also rules out cycles.
      model::StackId parent = r.id(1, "parent_id", want, "earlier stacks", true);
      model::LocationId loc = r.id(2, "location_id", p_.locations().size(), "locations", false);
      if (!r.ok()) return rowError("stacks", want, r.problem());
      if (p_.internStack(parent, loc) != want) {
        return rowError("stacks", want, "duplicates an earlier stack node");
      }
      return {};
    });
  }

  Status readSamples() {
    int64_t count = 0;
    if (int rc = pragma("SELECT count(*) FROM samples", count); rc != SQLITE_OK) {
      return sqliteError(rc, "samples");
    }
    auto& samples = p_.mutableSamples();
    samples.reserve(static_cast<size_t>(count));
    adviseHugePages(samples.data(), samples.capacity() * sizeof(model::Sample));
    const uint64_t stacks = p_.stacks().size();
    // stack_end came later in version 1: older recordings read it as 0.
    int64_t has_stack_end = 0;
    if (int rc = pragma("SELECT count(*) FROM pragma_table_info('samples') WHERE name='stack_end'",
                        has_stack_end);
        rc != SQLITE_OK) {
      return sqliteError(rc, "samples");
    }
    // Version 1 had no kind: its samples are all of its event's kind.
    const bool has_kind = version_ >= 2;
    const int64_t old_kind = static_cast<int64_t>(model::kindOfEvent(p_.meta().event));
    const std::string sql = std::string("SELECT rowid, time_ns, tid, cpu, stack_id, weight, ") +
                            (has_stack_end != 0 ? "stack_end" : "0") + ", " +
                            (has_kind ? "kind, off_cpu_reason" : std::to_string(old_kind) + ", 0") +
                            " FROM samples ORDER BY rowid";
    // Times and weights are never negative, and all weights together (every
    // kind's: pprof's wall value adds CPU and off-CPU) fit in int64, pprof's
    // type, so no sum over samples can overflow.
    uint64_t total = 0;
    return forEachRow("samples", sql.c_str(), [&](RowView& r, sqlite3_stmt* s) -> Status {
      model::Sample x;
      x.time_ns = static_cast<uint64_t>(r.integer(1, "time_ns", 0, INT64_MAX));
      x.tid = static_cast<int32_t>(r.integer(2, "tid", INT32_MIN, INT32_MAX));
      x.cpu = static_cast<uint32_t>(r.integer(3, "cpu", 0, kMaxU32));
      x.stack = r.id(4, "stack_id", stacks, "stacks", true);
      x.weight = static_cast<uint64_t>(r.integer(5, "weight", 0, INT64_MAX));
      x.stack_end = static_cast<model::StackEnd>(r.integer(6, "stack_end", 0, model::kMaxStackEnd));
      x.kind = static_cast<model::SampleKind>(r.integer(7, "kind", 0, model::kMaxSampleKind));
      x.off_cpu_reason = static_cast<model::OffCpuReason>(
          r.integer(8, "off_cpu_reason", 0, model::kMaxOffCpuReason));
      if (r.ok() && x.weight > static_cast<uint64_t>(INT64_MAX) - total) {
        r.note("the weights add up to more than " + std::to_string(INT64_MAX));
      }
      if (!r.ok()) return rowError("samples", sqlite3_column_int64(s, 0), r.problem());
      total += x.weight;
      samples.push_back(x);
      return {};
    });
  }

  Status readThreads() {
    // Version 1 has no roles.
    const char* sql = version_ >= 2
                          ? "SELECT rowid, tid, pid, name, role FROM threads ORDER BY rowid"
                          : "SELECT rowid, tid, pid, name, '' FROM threads ORDER BY rowid";
    return forEachRow("threads", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      model::Thread t;
      t.tid = static_cast<int32_t>(r.integer(1, "tid", INT32_MIN, INT32_MAX));
      t.pid = static_cast<int32_t>(r.integer(2, "pid", INT32_MIN, INT32_MAX));
      if (r.ok() && p_.findThread(t.tid) != nullptr) {
        r.note("tid " + std::to_string(t.tid) + " repeats");
      }
      if (!r.ok()) return rowError("threads", sqlite3_column_int64(s, 0), r.problem());
      t.name = r.text(3);
      t.role = r.text(4);
      p_.setThread(std::move(t));
      return {};
    });
  }

  // The JIT tables, when the recording has them (see schema.hpp).
  Status readJit() {
    int64_t present = 0;
    if (int rc = pragma("SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN "
                        "('jit_code','jit_lines','jit_code_bytes','anon_regions')",
                        present);
        rc != SQLITE_OK) {
      return sqliteError(rc, "sqlite_schema");
    }
    if (present == 0) return {};
    if (present != 4)
      return corrupt(
          "some of the tables jit_code, jit_lines, jit_code_bytes and "
          "anon_regions are missing");
    const char* sql =
        "SELECT id, pid, start, size, load_ns, unload_ns, name, source, module_offset "
        "FROM jit_code ORDER BY id";
    Status st = forEachRow("jit_code", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      uint64_t want = p_.jitCode().size();
      if (Status st = checkId(r, "jit_code", want); !st) return st;
      model::JitCode c;
      c.pid = static_cast<int32_t>(r.integer(1, "pid", INT32_MIN, INT32_MAX));
      c.start = r.u64(2, "start");
      c.size = r.u64(3, "size");
      c.load_ns = r.integer(4, "load_ns", INT64_MIN, INT64_MAX);
      c.unload_ns = sqlite3_column_type(s, 5) == SQLITE_NULL
                        ? model::kNeverUnloaded
                        : r.integer(5, "unload_ns", INT64_MIN, INT64_MAX);
      c.name = p_.internString(r.text(6));
      const std::string source = r.text(7);
      if (source == "jitdump") {
        c.source = model::JitSource::kJitdump;
      } else if (source == "perf-map") {
        c.source = model::JitSource::kPerfMap;
      } else if (source == "api") {
        c.source = model::JitSource::kApi;
      } else {
        r.note("source '" + printable(source) + "' is not jitdump, perf-map or api");
      }
      const uint64_t module_offset = r.u64(8, "module_offset");
      if (r.ok() && c.start > UINT64_MAX - c.size) r.note("start + size is past the address space");
      if (!r.ok()) return rowError("jit_code", static_cast<int64_t>(want), r.problem());
      model::JitCodeId id = p_.addJitCode(std::move(c));
      if (p_.jitCode()[id].module_offset != module_offset) {
        return rowError("jit_code", id,
                        "module_offset " + std::to_string(module_offset) + " where " +
                            std::to_string(p_.jitCode()[id].module_offset) +
                            " follows from the sizes before it");
      }
      return {};
    });
    if (!st) return st;
    auto& code = p_.mutableJitCode();
    st = forEachRow(
        "jit_lines", "SELECT code_id, offset, file, line FROM jit_lines ORDER BY code_id, rowid",
        [&](RowView& r, sqlite3_stmt* s) -> Status {
          model::JitCodeId id = r.id(0, "code_id", code.size(), "jit_code", false);
          model::JitLine l;
          l.offset = r.u64(1, "offset");
          l.line = static_cast<uint32_t>(r.integer(3, "line", 0, kMaxU32));
          if (r.ok() && !code[id].lines.empty() && l.offset < code[id].lines.back().offset) {
            r.note("offsets must not decrease");
          }
          if (!r.ok()) {
            return corrupt("jit_lines row (code_id " + std::to_string(sqlite3_column_int64(s, 0)) +
                           "): " + r.problem());
          }
          l.file = p_.internString(r.text(2));
          code[id].lines.push_back(l);
          return {};
        });
    if (!st) return st;
    st = forEachRow("jit_code_bytes", "SELECT code_id, bytes FROM jit_code_bytes ORDER BY code_id",
                    [&](RowView& r, sqlite3_stmt* s) -> Status {
                      model::JitCodeId id = r.id(0, "code_id", code.size(), "jit_code", false);
                      if (!r.ok()) return corrupt("jit_code_bytes row: " + r.problem());
                      const void* b = sqlite3_column_blob(s, 1);
                      const int n = sqlite3_column_bytes(s, 1);
                      if (b != nullptr && n > 0) {
                        code[id].bytes.assign(static_cast<const char*>(b), static_cast<size_t>(n));
                      }
                      return {};
                    });
    if (!st) return st;
    return forEachRow("anon_regions", "SELECT pid, start, end FROM anon_regions ORDER BY rowid",
                      [&](RowView& r, sqlite3_stmt*) -> Status {
                        auto pid = static_cast<int32_t>(r.integer(0, "pid", INT32_MIN, INT32_MAX));
                        uint64_t start = r.u64(1, "start");
                        uint64_t end = r.u64(2, "end");
                        if (r.ok() && end <= start) r.note("end is not after start");
                        if (!r.ok()) return corrupt("anon_regions row: " + r.problem());
                        p_.addAnonRegion(pid, start, end);
                        return {};
                      });
  }

  Status readSpans() {
    if (version_ < 2) return {};
    const char* sql = "SELECT rowid, tid, start_ns, end_ns, name, depth FROM spans ORDER BY rowid";
    return forEachRow("spans", sql, [&](RowView& r, sqlite3_stmt* s) -> Status {
      model::Span x;
      x.tid = static_cast<int32_t>(r.integer(1, "tid", INT32_MIN, INT32_MAX));
      x.start_ns = r.u64(2, "start_ns");
      x.end_ns = r.u64(3, "end_ns");
      x.depth = static_cast<uint32_t>(r.integer(5, "depth", 0, kMaxU32));
      if (r.ok() && x.end_ns < x.start_ns) r.note("end_ns is before start_ns");
      if (!r.ok()) return rowError("spans", sqlite3_column_int64(s, 0), r.problem());
      x.name = p_.internString(r.text(4));
      p_.addSpan(x);
      return {};
    });
  }

  const std::string& path_;
  int64_t size_ = 0;              // of the file, in bytes
  int version_ = kSchemaVersion;  // the file's schema version (checkIdentity)
  Db db_;
  model::Profile p_;
};

}  // namespace

Result<model::Profile> readProfile(const std::string& path) {
  try {
    return Reader(path).read();
  } catch (const std::bad_alloc&) {
    return makeError("cannot read " + path + ": out of memory",
                     "free some memory, or report on a smaller recording");
  }
}

}  // namespace strobe::store
