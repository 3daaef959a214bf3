// What a module's path (as mapped, see Module::path) says about where its
// bytes can be read. Header-only; no I/O.
#pragma once

#include <string_view>

namespace strobe::model {

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

}  // namespace strobe::model
