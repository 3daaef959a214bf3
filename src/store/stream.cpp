// RecordingStream: batches copied on the recording thread, written by one
// writer thread, one transaction each (see stream.hpp).
#include "store/stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/clock.hpp"
#include "store/line_file.hpp"
#include "store/meta_codec.hpp"
#include "store/schema.hpp"
#include "store/sqlite_handle.hpp"
#include "store/store.hpp"
#include "store/write_errors.hpp"

namespace strobe::store {
namespace {

struct FunctionRow {
  std::string name;
  std::string system_name;
  std::string file;
  uint32_t start_line = 0;
};

// The rows one append() adds. Ids continue from the first_* of each table.
struct Batch {
  uint32_t first_module = 0;
  uint32_t first_function = 0;
  uint32_t first_location = 0;
  uint32_t first_stack = 0;
  std::vector<std::pair<std::string, std::string>> modules;  // path, build_id
  std::vector<FunctionRow> functions;
  std::vector<model::Location> locations;
  std::vector<std::string> line_files;  // each line's file column, in order
  std::vector<model::StackNode> stacks;
  std::vector<model::Sample> samples;
  std::vector<model::Thread> threads;  // new, or renamed since streamed
  std::vector<model::Span> spans;
  std::vector<std::string> span_names;  // spans[i]'s name
  std::vector<std::pair<std::string, std::string>> meta;

  [[nodiscard]] uint64_t rows() const {
    uint64_t lines = 0;
    for (const model::Location& l : locations) lines += l.lines.size();
    return modules.size() + functions.size() + locations.size() + lines + stacks.size() +
           samples.size() + threads.size() + spans.size() + meta.size();
  }
};

// How far each table has been streamed (the recording thread's).
struct Cursor {
  size_t modules = 0;
  size_t functions = 0;
  size_t locations = 0;
  size_t stacks = 0;
  size_t samples = 0;
  size_t spans = 0;
  std::unordered_map<int32_t, model::Thread> threads;  // tid -> as streamed
};

// The rows `p` gained past `c`, into `b`; advances `c`. Tables only grow
// while recording; one that shrank is left alone.
void takeBatch(const model::Profile& p, const model::Meta& meta, Cursor& c, Batch& b) {
  b.first_module = static_cast<uint32_t>(c.modules);
  for (; c.modules < p.modules().size(); ++c.modules) {
    const model::Module& m = p.modules()[c.modules];
    b.modules.emplace_back(p.str(m.path), p.str(m.build_id));
  }
  b.first_function = static_cast<uint32_t>(c.functions);
  for (; c.functions < p.functions().size(); ++c.functions) {
    const model::Function& f = p.functions()[c.functions];
    b.functions.push_back({p.str(f.name), p.str(f.system_name), p.str(f.file), f.start_line});
  }
  b.first_location = static_cast<uint32_t>(c.locations);
  b.locations.assign(
      p.locations().begin() + static_cast<ptrdiff_t>(std::min(c.locations, p.locations().size())),
      p.locations().end());
  c.locations = std::max(c.locations, p.locations().size());
  for (const model::Location& l : b.locations) {
    for (const model::Line& line : l.lines) b.line_files.push_back(storedLineFile(p, line));
  }
  b.first_stack = static_cast<uint32_t>(c.stacks);
  b.stacks.assign(
      p.stacks().begin() + static_cast<ptrdiff_t>(std::min(c.stacks, p.stacks().size())),
      p.stacks().end());
  c.stacks = std::max(c.stacks, p.stacks().size());
  b.samples.assign(
      p.samples().begin() + static_cast<ptrdiff_t>(std::min(c.samples, p.samples().size())),
      p.samples().end());
  c.samples = std::max(c.samples, p.samples().size());
  for (const model::Thread& t : p.threads()) {
    auto [it, inserted] = c.threads.try_emplace(t.tid, t);
    if (!inserted) {
      const model::Thread& was = it->second;
      if (was.pid == t.pid && was.name == t.name && was.role == t.role) continue;
      it->second = t;
    }
    b.threads.push_back(t);
  }
  for (; c.spans < p.spans().size(); ++c.spans) {
    b.spans.push_back(p.spans()[c.spans]);
    b.span_names.push_back(p.str(p.spans()[c.spans].name));
  }
  model::Meta m = meta;
  m.incomplete = 1;
  b.meta = metaRows(m, kSchemaVersion);
}

int64_t u64(uint64_t v) {
  return static_cast<int64_t>(v);  // the same 64 bits (docs/FORMAT.md)
}

void bind(sqlite3_stmt* st, int i, int64_t v) {
  sqlite3_bind_int64(st, i, v);
}
void bind(sqlite3_stmt* st, int i, const std::string& v) {
  sqlite3_bind_text64(st, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
}
// An id, NULL when kNone.
void bind(sqlite3_stmt* st, int i, uint32_t id) {
  if (id == model::kNone) {
    sqlite3_bind_null(st, i);
  } else {
    sqlite3_bind_int64(st, i, id);
  }
}

// Binds one row to `s`, steps and resets it; SQLITE_OK or the error.
template <typename... V>
int insert(const Stmt& s, const V&... values) {
  sqlite3_stmt* st = s.get();
  [[maybe_unused]] int i = 0;
  (bind(st, ++i, values), ...);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

uint64_t threadCpuNs() {
  return clockNs(CLOCK_THREAD_CPUTIME_ID);
}

}  // namespace

struct RecordingStream::Impl {
  std::string path;
  Db db;
  Stmt meta_clear, meta, modules, functions, locations, lines, stacks, samples, threads, spans;

  std::mutex mu;  // guards what follows, up to `cursor`
  std::condition_variable cv;
  std::deque<Batch> queue;
  bool closing = false;
  bool failed = false;
  Error error;
  StreamStats stats;
  std::thread writer;

  Cursor cursor;  // the recording thread's
  bool closed = false;

  Error fail(int rc) const { return sqliteWriteError(path, path, db, rc); }

  int prepare() {
    const std::pair<Stmt*, const char*> statements[] = {
        {&meta_clear, "DELETE FROM meta"},
        {&meta, "INSERT INTO meta(key, value) VALUES(?,?)"},
        {&modules, "INSERT INTO modules(id, path, build_id) VALUES(?,?,?)"},
        {&functions,
         "INSERT INTO functions(id, name, system_name, file, start_line) VALUES(?,?,?,?,?)"},
        {&locations, "INSERT INTO locations(id, module_id, address, offset) VALUES(?,?,?,?)"},
        {&lines,
         "INSERT INTO location_lines(location_id, depth, function_id, line, file) "
         "VALUES(?,?,?,?,?)"},
        {&stacks, "INSERT INTO stacks(id, parent_id, location_id) VALUES(?,?,?)"},
        {&samples,
         "INSERT INTO samples(time_ns, tid, cpu, stack_id, weight, stack_end, kind, "
         "off_cpu_reason) VALUES(?,?,?,?,?,?,?,?)"},
        // A renamed thread keeps its row (and its place in the order).
        {&threads,
         "INSERT INTO threads(tid, pid, name, role) VALUES(?,?,?,?) "
         "ON CONFLICT(tid) DO UPDATE SET pid = excluded.pid, name = excluded.name, "
         "role = excluded.role"},
        {&spans, "INSERT INTO spans(tid, start_ns, end_ns, name, depth) VALUES(?,?,?,?,?)"},
    };
    for (const auto& [stmt, sql] : statements) {
      if (int rc = stmt->prepare(db, sql); rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
  }

  int writeRows(const Batch& b) {
    int rc = SQLITE_OK;
    auto ok = [&](int r) { return (rc = r) == SQLITE_OK; };
    int64_t id = b.first_module;
    for (const auto& [path_text, build_id] : b.modules) {
      if (!ok(insert(modules, id++, path_text, build_id))) return rc;
    }
    id = b.first_function;
    for (const FunctionRow& f : b.functions) {
      if (!ok(insert(functions, id++, f.name, f.system_name, f.file, int64_t{f.start_line}))) {
        return rc;
      }
    }
    id = b.first_location;
    size_t line_at = 0;
    for (const model::Location& l : b.locations) {
      if (!ok(insert(locations, id, l.module, u64(l.address), u64(l.offset)))) return rc;
      int64_t depth = 0;
      for (const model::Line& line : l.lines) {
        if (!ok(insert(lines, id, depth++, line.function, int64_t{line.line},
                       b.line_files[line_at++]))) {
          return rc;
        }
      }
      ++id;
    }
    id = b.first_stack;
    for (const model::StackNode& n : b.stacks) {
      if (!ok(insert(stacks, id++, n.parent, n.location))) return rc;
    }
    for (const model::Sample& x : b.samples) {
      if (!ok(insert(samples, u64(x.time_ns), int64_t{x.tid}, int64_t{x.cpu}, x.stack,
                     u64(x.weight), static_cast<int64_t>(x.stack_end), static_cast<int64_t>(x.kind),
                     static_cast<int64_t>(x.off_cpu_reason)))) {
        return rc;
      }
    }
    for (const model::Thread& t : b.threads) {
      if (!ok(insert(threads, int64_t{t.tid}, int64_t{t.pid}, t.name, t.role))) return rc;
    }
    for (size_t i = 0; i < b.spans.size(); ++i) {
      const model::Span& x = b.spans[i];
      if (!ok(insert(spans, int64_t{x.tid}, u64(x.start_ns), u64(x.end_ns), b.span_names[i],
                     int64_t{x.depth}))) {
        return rc;
      }
    }
    if (!ok(insert(meta_clear))) return rc;
    for (const auto& [key, value] : b.meta) {
      if (!ok(insert(meta, key, value))) return rc;
    }
    return SQLITE_OK;
  }

  // One transaction per batch; a failed one is rolled back whole.
  int writeBatch(const Batch& b) {
    int rc = db.exec("BEGIN");
    if (rc == SQLITE_OK) rc = writeRows(b);
    if (rc == SQLITE_OK) rc = db.exec("COMMIT");
    if (rc != SQLITE_OK) (void)db.exec("ROLLBACK");
    return rc;
  }

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return closing || !queue.empty(); });
      if (queue.empty()) return;  // closing, all written
      Batch b = std::move(queue.front());
      queue.pop_front();
      if (failed) continue;  // after the first error, batches are dropped
      lock.unlock();
      const uint64_t cpu0 = threadCpuNs();
      const uint64_t wall0 = monotonicNs();
      int rc = writeBatch(b);
      const uint64_t wall = monotonicNs() - wall0;
      const uint64_t cpu = threadCpuNs() - cpu0;
      Error e = rc == SQLITE_OK ? Error{} : fail(rc);
      lock.lock();
      stats.writer_cpu_ns += cpu;
      stats.max_write_ns = std::max(stats.max_write_ns, wall);
      if (rc != SQLITE_OK) {
        failed = true;
        error = std::move(e);
        continue;
      }
      ++stats.batches;
      stats.samples += b.samples.size();
      stats.rows += b.rows();
    }
  }

  void stopWriter() {
    {
      std::lock_guard lock(mu);
      closing = true;
    }
    cv.notify_one();
    if (writer.joinable()) writer.join();
  }

  void removeFiles() const {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      ::unlink((path + suffix).c_str());
    }
  }
};

RecordingStream::RecordingStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RecordingStream::~RecordingStream() {
  if (impl_ && !impl_->closed) (void)finish();
}

Result<std::unique_ptr<RecordingStream>> RecordingStream::create(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  if (auto st = checkDirectory(path); !st) return st.takeError();
  // Side files of an earlier recording at `path` would be read as part of
  // the new one.
  for (const char* suffix : {"-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
  if (auto st = createFile(path, path); !st) return st.takeError();
  auto failed = [&](int rc) {
    Error e = impl->fail(rc);
    impl->db.close();
    impl->removeFiles();
    return e;
  };
  int rc = impl->db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
  if (rc != SQLITE_OK) return failed(rc);
  // The schema is committed before WAL mode, so that PATH itself holds it
  // even if the first checkpoint never comes. synchronous=OFF from the
  // start: a stream never fsyncs (creating it with SQLite's default synced
  // a dozen times before the command could start).
  const std::string pragmas =
      "PRAGMA synchronous=OFF; PRAGMA page_size=" + std::to_string(kPageSize) +
      "; PRAGMA application_id=" + std::to_string(kApplicationId) +
      "; PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
  if ((rc = impl->db.exec(pragmas.c_str())) != SQLITE_OK) return failed(rc);
  if ((rc = impl->db.exec("BEGIN")) != SQLITE_OK) return failed(rc);
  if ((rc = impl->db.exec(kCreateTablesSql)) != SQLITE_OK) return failed(rc);
  if ((rc = impl->db.exec(kCreateCodeTablesSql)) != SQLITE_OK) return failed(rc);
  if ((rc = impl->db.exec(kCreateViewsSql)) != SQLITE_OK) return failed(rc);
  if ((rc = impl->db.exec("COMMIT")) != SQLITE_OK) return failed(rc);
  // WAL: a commit appends to PATH-wal, and a commit cut short by a kill
  // is ignored when the file is read. synchronous=OFF: no fsync while
  // recording (a killed process loses nothing the kernel has).
  if ((rc = impl->db.exec("PRAGMA journal_mode=WAL")) != SQLITE_OK) {
    return failed(rc);
  }
  if ((rc = impl->prepare()) != SQLITE_OK) return failed(rc);
  Impl* raw = impl.get();
  impl->writer = std::thread([raw] { raw->run(); });
  return std::unique_ptr<RecordingStream>(new RecordingStream(std::move(impl)));
}

void RecordingStream::append(const model::Profile& profile, const model::Meta& meta) {
  if (impl_->closed) return;
  const uint64_t t0 = monotonicNs();
  Batch b;
  takeBatch(profile, meta, impl_->cursor, b);
  const uint64_t took = monotonicNs() - t0;
  {
    std::lock_guard lock(impl_->mu);
    impl_->stats.copy_ns += took;
    impl_->stats.max_copy_ns = std::max(impl_->stats.max_copy_ns, took);
    if (!impl_->failed) impl_->queue.push_back(std::move(b));
  }
  impl_->cv.notify_one();
}

Status RecordingStream::finish() {
  if (impl_->closed) return status();
  impl_->stopWriter();
  impl_->closed = true;
  Status st = status();
  // Fold the WAL into PATH and leave rollback-journal mode: one file, as
  // writeProfile writes. Statements first: a connection with unfinalized
  // statements does not close.
  for (Stmt* s :
       {&impl_->meta_clear, &impl_->meta, &impl_->modules, &impl_->functions, &impl_->locations,
        &impl_->lines, &impl_->stacks, &impl_->samples, &impl_->threads, &impl_->spans}) {
    s->finalize();
  }
  int rc = impl_->db.exec("PRAGMA journal_mode=DELETE");
  if (rc != SQLITE_OK && st) st = impl_->fail(rc);
  impl_->db.close();
  return st;
}

void RecordingStream::discard() {
  if (!impl_->closed) {
    impl_->stopWriter();
    impl_->closed = true;
  }
  impl_->db.close();
  impl_->removeFiles();
}

Status RecordingStream::status() const {
  std::lock_guard lock(impl_->mu);
  if (impl_->failed) return impl_->error;
  return {};
}

StreamStats RecordingStream::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

const std::string& RecordingStream::path() const {
  return impl_->path;
}

}  // namespace strobe::store
