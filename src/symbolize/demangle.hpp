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

#include "model/symbol_names.hpp"

namespace strobe::symbolize {

std::string demangle(std::string_view name);

// Exactly what binutils' addr2line -C prints for `name` (bfd_demangle):
// leading '.'/'$' and an '@...' suffix are set aside and put back, and every
// style libiberty knows is tried. Unchanged when nothing demangles.
std::string demangleLikeBinutils(std::string_view name);

// Clone suffixes: model/symbol_names.hpp (the model decides function
// identity with them).
using model::cloneBase;
using model::cloneSuffix;
using model::isClone;

}  // namespace strobe::symbolize
