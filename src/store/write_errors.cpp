// The errors of writing a recording (see write_errors.hpp).
#include "store/write_errors.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace strobe::store {

Error writeError(const std::string& path, const std::string& what, const std::string& hint) {
  return makeError("cannot write " + path + ": " + what, hint);
}

Error diskFull(const std::string& path) {
  return writeError(path, "the disk is full",
                    "free some space, or write the recording elsewhere with -o FILE");
}

// The errors a system call's errno explains well; std::nullopt for others.
std::optional<Error> errnoError(const std::string& path, int err) {
  if (err == ENOSPC || err == EDQUOT) return diskFull(path);
  if (err == EROFS) {
    return writeError(path, "read-only file system",
                      "write the recording to a writable file system with -o FILE");
  }
  if (err == EACCES || err == EPERM) {
    return writeError(path, "permission denied",
                      "choose a writable directory with -o FILE, or fix its permissions");
  }
  return std::nullopt;
}

// Creates the empty partial file, for SQLite to fill: its errno, unlike
// SQLite's, says exactly why a file cannot be created here.
Status createFile(const std::string& file, const std::string& path) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    if (auto e = errnoError(path, err)) return *e;
    return writeError(path, "cannot create " + file + ": " + std::strerror(err), kGenericHint);
  }
  ::close(fd);
  return {};
}

// The error for a failed SQLite call on `file` (the partial file), from its
// result code and the errno behind it. After an I/O error SQLite's errno is
// often lost (later calls overwrite it), so the usual causes, a file size
// limit and a full disk, are also checked directly.
Error sqliteWriteError(const std::string& path, const std::string& file, const Db& db, int rc) {
  int err = db.systemErrno();
  int primary = rc & 0xFF;
  if (primary == SQLITE_FULL || err == ENOSPC || err == EDQUOT) return diskFull(path);
  if (primary == SQLITE_IOERR) {
    struct stat st {};
    rlimit limit{};
    bool have_size = ::stat(file.c_str(), &st) == 0;
    if (err == EFBIG ||
        (have_size && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         static_cast<uint64_t>(st.st_size) + kPageSize > limit.rlim_cur)) {
      return writeError(path, "the file would exceed the file size limit (ulimit -f)",
                        "raise the limit (ulimit -f unlimited), or write a smaller recording");
    }
    struct statvfs fs {};
    if (::statvfs(file.c_str(), &fs) == 0 &&
        static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < 2 * kPageSize) {
      return diskFull(path);
    }
  }
  if (primary == SQLITE_READONLY) err = EROFS;
  if (primary == SQLITE_PERM) err = EACCES;
  if (auto e = errnoError(path, err)) return *e;
  return writeError(path, db.message(), kGenericHint);
}

// The directory that will hold `path` must exist before SQLite tries.
Status checkDirectory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return writeError(path, "directory " + dir + " does not exist",
                        "create it first (mkdir -p " + dir + ") or choose another file with -o");
    }
    return writeError(path, std::string("cannot access ") + dir + ": " + std::strerror(errno),
                      kGenericHint);
  }
  if (!S_ISDIR(st.st_mode)) {
    return writeError(path, dir + " is not a directory", "choose another file with -o FILE");
  }
  return {};
}

}  // namespace strobe::store
