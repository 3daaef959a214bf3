// parseAddress(): an address as `strobe symbolize` reads it from its
// arguments and its input lines, the way binutils' addr2line reads them
// (bfd_scan_vma(s, NULL, 16)): blanks, then hex digits with an optional 0x
// and '+'; anything unparsable, a '-' sign included, reads as 0.
// Thread safety: a pure function. Never reads past the terminating NUL.
#pragma once

#include <cstdint>

namespace strobe::symbolize {

// `s` is NUL-terminated.
uint64_t parseAddress(const char* s);

}  // namespace strobe::symbolize
