// demangle(): C++ (Itanium ABI) symbol names made readable.
//
// Owns nothing; the returned string is the caller's. Uses the C++ runtime's
// abi::__cxa_demangle and frees its buffer. A name that is not mangled (C
// symbols, or anything __cxa_demangle rejects) comes back unchanged.
// Thread safety: thread-safe (no shared state). Not async-signal-safe.
#pragma once

#include <string>
#include <string_view>

namespace strobe::symbolize {

std::string demangle(std::string_view name);

}  // namespace strobe::symbolize
