// Internal to src/disasm: capstone's functions, loaded with dlopen from
// the shared library of the capstone the headers describe
// (libcapstone.so.<CS_API_MAJOR>: .4 on Debian 12) the first time a
// Disassembler opens. Linking capstone in cost every strobe command 1.1 ms
// and 365 page faults at start (its tables' 77,000 relocations; `perf stat
// -r 200 strobe --version`: 3.07 ms against 1.95 ms), and only annotate
// disassembles.
// Owns: the library handle, never closed. Thread safety: capstone() may be
// called from any thread (loaded once); the functions are capstone's.
#pragma once

#include <capstone/capstone.h>

#include "base/result.hpp"

namespace strobe::disasm {

struct CapstoneApi {
  decltype(&::cs_open) open = nullptr;
  decltype(&::cs_close) close = nullptr;
  decltype(&::cs_option) option = nullptr;
  decltype(&::cs_malloc) malloc = nullptr;
  decltype(&::cs_free) free = nullptr;
  decltype(&::cs_disasm_iter) disasm_iter = nullptr;
  decltype(&::cs_strerror) strerror = nullptr;
};

// kUnsupported, with the package to install, when the library is missing.
Result<const CapstoneApi*> capstone();

}  // namespace strobe::disasm
