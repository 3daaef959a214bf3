// The native recording: a Profile stored as one self-contained SQLite
// database (schema in docs/FORMAT.md). Text is stored inline, so a user can
// query a recording with plain SQL, and reports work after the profiled
// binary is gone.
//
// Owns: nothing between calls. Each call opens its own SQLite connection and
// closes it before returning; the caller owns the Profile it passes or gets.
// Thread safety: both functions are reentrant; concurrent calls on different
// paths are safe. Writing and reading the same path concurrently is not
// coordinated (the reader sees the old file or the complete new one, because
// the writer renames a finished file into place).
// Errors: Result/Status with a one-line message naming the path and a hint;
// neither function throws or crashes on bad input.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::store {

// The schema version this strobe writes (PRAGMA user_version and meta
// 'schema_version'); it reads every version from kOldestSchemaVersion on.
// Version 2 added spans and thread roles (table spans, threads.role), what
// each sample's weight measures (samples.kind, samples.off_cpu_reason) and the
// kept code of sampled functions (tables code and code_lines, read by
// readCode()).
inline constexpr int kSchemaVersion = 2;
inline constexpr int kOldestSchemaVersion = 1;
// PRAGMA application_id of every strobe recording: "STRB" in ASCII.
inline constexpr int32_t kApplicationId = 0x53545242;

// Writes `profile` to `path` atomically: the database is built in
// `path + ".partial"` in one transaction, synced, then renamed over `path`.
// On failure the partial file is removed and `path` is left untouched.
// Errors are ErrorKind::kGeneric (missing directory, permission, read-only
// file system, disk full, any other I/O failure).
Status writeProfile(const model::Profile& profile, const std::string& path);

// Reads a recording back into a Profile whose module, function, location and
// stack ids equal the stored ids (string ids may differ). Errors:
//   kNotFound    no file at `path`
//   kCorrupt     not SQLite, not strobe's, missing tables, bad rows
//   kUnsupported written by a newer strobe (higher schema version)
//   kGeneric     anything else (I/O, out of memory)
Result<model::Profile> readProfile(const std::string& path);

// Adds to `profile` (as readProfile(path) returned it) the code the
// recording kept of its sampled functions (model/code.hpp). Reports that do
// not need it never load it. Returns false, adding nothing, for a recording
// written before strobe kept code (schema 1). Errors (kCorrupt for a damaged
// code table, naming the row; kGeneric for I/O) leave `profile` unchanged,
// and the rest of the recording is still good: callers warn and go on.
// Bytes are not checked against their size or checksum here (annotate does,
// and says what it found).
Result<bool> readCode(const std::string& path, model::Profile& profile);

}  // namespace strobe::store
