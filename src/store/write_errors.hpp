// Internal to src/store: the errors of writing a recording, shared by
// writeProfile (writer.cpp) and RecordingStream (stream.cpp), so both say
// the same about the same failure: one line naming the recording's path and
// the cause (disk full, read-only file system, permission, file size limit,
// missing directory) and a hint.
// Owns: nothing. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "store/sqlite_handle.hpp"

namespace strobe::store {

inline constexpr uint64_t kPageSize = 16384;  // PRAGMA page_size of a recording
inline constexpr const char* kGenericHint =
    "check that the directory is writable and has free space, or write elsewhere with -o FILE";

// "cannot write PATH: WHAT" with `hint`.
Error writeError(const std::string& path, const std::string& what, const std::string& hint);
// The disk (or the user's quota) is full.
Error diskFull(const std::string& path);
// The errors a system call's errno explains well; std::nullopt for others.
std::optional<Error> errnoError(const std::string& path, int err);
// Creates (or empties) `file`, for SQLite to fill: its errno, unlike
// SQLite's, says exactly why a file cannot be created here.
Status createFile(const std::string& file, const std::string& path);
// The error for a failed SQLite call on `file`, from its result code and
// the errno behind it (file size limit and full disk checked directly).
Error sqliteWriteError(const std::string& path, const std::string& file, const Db& db, int rc);
// The directory that will hold `path` must exist before SQLite tries.
Status checkDirectory(const std::string& path);

}  // namespace strobe::store
