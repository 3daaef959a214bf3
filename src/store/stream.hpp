// RecordingStream: a recording written while it is being made, so that it
// survives its recorder. create() makes PATH a recording at once (the schema
// of writeProfile, application_id, version); append() adds what a growing
// Profile gained since the last call (modules, functions, locations, stack
// nodes, samples with their kind, new or renamed threads with their role,
// spans) and replaces the meta rows, with
// meta `incomplete` = 1. After a SIGKILL, PATH reads as a recording whose
// samples end at the last append that reached the disk, unsymbolized.
//
// Costs on the recording thread: append() copies the new rows into a batch
// and hands it to the stream's own writer thread; it never waits for I/O.
// The writer thread commits one SQLite transaction per batch in WAL mode
// with synchronous=OFF: the data reaches the page cache (which a killed
// process does not lose) and is never fsynced while recording, so a slow
// disk cannot stall the drain loop. A killed stream leaves PATH-wal and
// PATH-shm beside PATH: SQLite reads them with PATH (keep them together);
// finish() folds them in.
//
// Extending (new tables such as spans or switch records): add the rows to
// Batch, copy the new ones in takeBatch() (a cursor remembers how far each
// table was streamed) and insert them in writeBatch(); the tables themselves
// come from schema.hpp, shared with writeProfile.
//
// Errors: the first failed write (disk full, ...) is kept, with the message
// writeProfile would give; later batches are dropped (the stream stops,
// the Profile in memory is complete). Thread safety: append(), finish() and
// discard() from one thread (the recorder); the writer thread is internal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::store {

// What streaming cost, for STROBE_DEBUG and bench/stream.
struct StreamStats {
  uint64_t batches = 0;
  uint64_t samples = 0;        // sample rows written
  uint64_t rows = 0;           // rows of every table written
  uint64_t copy_ns = 0;        // recording thread: time in append()
  uint64_t max_copy_ns = 0;    // the longest append()
  uint64_t writer_cpu_ns = 0;  // writer thread: CPU time writing batches
  uint64_t max_write_ns = 0;   // the longest batch write (wall)
};

class RecordingStream {
 public:
  // Creates `path` as a new, empty recording (anything there is replaced:
  // the caller moves what must be kept aside first; stale SQLite side files
  // of an earlier recording at `path` are removed). Errors as writeProfile's
  // (missing directory, read-only file system, permission, disk full).
  static Result<std::unique_ptr<RecordingStream>> create(const std::string& path);
  ~RecordingStream();  // finish() unless finished or discarded
  RecordingStream(const RecordingStream&) = delete;
  RecordingStream& operator=(const RecordingStream&) = delete;

  // Streams what `profile` gained since the last call, and `meta` (the
  // recording's meta as of now: its duration so far, lost samples, ...).
  void append(const model::Profile& profile, const model::Meta& meta);
  // Writes everything appended, then leaves PATH one self-contained file
  // (WAL folded in, rollback journal mode) and closes it. The first write
  // error of the whole stream, if any; PATH then holds the rows written
  // before it.
  Status finish();
  // Removes PATH and its side files: the recording never started.
  void discard();
  // The first write error so far; ok while the stream writes.
  [[nodiscard]] Status status() const;
  [[nodiscard]] StreamStats stats() const;
  [[nodiscard]] const std::string& path() const;

  struct Impl;

 private:
  explicit RecordingStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strobe::store
