// What a module's path (as mapped, see Module::path) says about where its
// bytes can be read. Header-only; no I/O.
#pragma once

#include <string_view>

namespace strobe::model {

// The last component of a path (all of it when it has no '/').
inline std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A path that names a file on disk: absolute, and not one of the kernel's
// names for memory without a file ("[vdso]", "[stack]", "//anon",
// "/memfd:...", "/dev/zero", SysV shared memory, "/anon_hugepage").
inline bool isFileBacked(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  for (std::string_view prefix : {"//anon", "/memfd:", "/dev/", "/SYSV", "/anon_hugepage"}) {
    if (path.substr(0, prefix.size()) == prefix) return false;
  }
  return true;
}

// Memory without a file in which a JIT may put code: anonymous mappings
// ("//anon" in MMAP2 records, "" in /proc/PID/maps, "[anon:NAME]" when
// named), memfd files (JITs that map their code twice) and no mapping at all.
inline bool isAnonymousCode(std::string_view path) {
  return path.empty() || path == "//anon" || path.substr(0, 7) == "/memfd:" ||
         path.substr(0, 6) == "[anon:";
}

// The marker mapping of a jitdump file: a path whose last component is
// "jit-PID.dump" (perf's rule: the runtime maps the file it writes).
inline bool isJitdumpMarker(std::string_view path) {
  std::string_view name = baseName(path);
  constexpr std::string_view kPrefix = "jit-", kSuffix = ".dump";
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.substr(0, kPrefix.size()) != kPrefix ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  for (char c : name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace strobe::model
