// KeptFiles: descriptors of the files the profiled processes mapped, held
// open while recording, so that unwinding and symbolization read the bytes
// that ran even when a file is deleted or replaced during the run.
//
// A mapping seen while its process lives is opened through
// /proc/PID/map_files/START-END (this needs CAP_SYS_ADMIN, as root has; for
// other users the open fails and nothing is kept: names then come from the
// path, as before). One descriptor per (path, build-id), at most
// `max_files` in all. The vdso is not a file: its image (the kernel's, the
// same in every process) is copied from strobe's own memory into a memfd
// the first time a "[vdso]" mapping is seen.
// pathFor() names a kept file as "/proc/self/fd/N", for code that opens by
// path (ElfFile, the unwinder's CFI cache); dupFor() gives a descriptor of
// its own to code that reads later, on another thread (the agent's namer).
// Sessions that run for days (strobe agent) call forgetProcess() for each
// process that exited and whose samples are gone: a file no process seen
// since maps any more is closed (so a deleted file's space is freed, and
// the bound leaves room for new programs' files). The vdso stays.
// Thread safety: none (the drain thread's, then the symbolizer's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/fd.hpp"

namespace strobe::record {

class KeptFiles {
 public:
  explicit KeptFiles(size_t max_files = 1024) : max_files_(max_files) {}

  // An executable mapping [start, end) of `path` in process `pid`.
  void onMapping(int32_t pid, uint64_t start, uint64_t end, const std::string& path,
                 const std::string& build_id);

  // "/proc/self/fd/N" for the kept copy of (path, build_id), "" when none.
  [[nodiscard]] std::string pathFor(const std::string& path, const std::string& build_id) const;
  // A new descriptor of that copy (invalid when none), the caller's to close.
  [[nodiscard]] Fd dupFor(const std::string& path, const std::string& build_id) const;
  // Process `pid` maps nothing any more: the files only it mapped are closed.
  void forgetProcess(int32_t pid);

  [[nodiscard]] size_t size() const { return files_.size(); }

 private:
  static std::string key(const std::string& path, const std::string& build_id);
  Fd openVdso() const;

  struct File {
    Fd fd;             // invalid: tried, not kept
    size_t users = 0;  // processes seen mapping it and not forgotten (0 for the vdso)
  };
  size_t max_files_;
  std::unordered_map<std::string, File> files_;
  // pid -> its files' keys, in files_ (a node's key stays put; a file is
  // erased only once no process lists it). A few dozen per process: the
  // duplicate check is a scan.
  std::unordered_map<int32_t, std::vector<const std::string*>> keys_of_;
};

}  // namespace strobe::record
