// demangle(): symbol names made readable; compiler clone suffixes.
//
// Owns nothing; returned strings are the caller's, returned views point into
// the argument. Uses libiberty (Debian's libiberty-dev), the demangler of
// binutils and GCC: C++ (Itanium ABI), Rust legacy (_ZN...17h<hash>E, shown
// without the hash) and Rust v0 (_R...). Its buffers are freed here. A name
// that is not mangled, or that the demangler rejects, comes back unchanged.
// Thread safety: thread-safe (no shared state). Not async-signal-safe.
#pragma once

#include <string>
#include <string_view>

namespace strobe::symbolize {

std::string demangle(std::string_view name);

// Exactly what binutils' addr2line -C prints for `name` (bfd_demangle):
// leading '.'/'$' and an '@...' suffix are set aside and put back, and every
// style libiberty knows is tried. Unchanged when nothing demangles.
std::string demangleLikeBinutils(std::string_view name);

// The name without GCC/Clang clone suffixes: "_Z3fooi.part.0" -> "_Z3fooi";
// also .cold, .isra.N, .constprop.N, .lto_priv.N, .localalias, .llvm.N and
// chains of them. A name without such suffixes comes back whole.
std::string_view cloneBase(std::string_view name);
// The clone suffix (".part.0", ".cold", ...), "" when none.
std::string_view cloneSuffix(std::string_view name);
inline bool isClone(std::string_view name) {
  return !cloneSuffix(name).empty();
}

}  // namespace strobe::symbolize
