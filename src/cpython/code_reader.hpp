// CodeReader: names the code objects of one CPython process from its
// memory (process_vm_readv): qualified name (co_qualname), file
// (co_filename), first line and line table, and turns a frame's
// instruction offset into a line (line_table.hpp).
//
// Each code object is read once and cached by address. A code object can
// be freed and its address reused by another one (code compiled at run
// time, a reloaded module): on its first use after each nextEpoch() (the
// recorder starts one per drain pass) a cached entry's header is read
// again, and a header that changed (type, size, or the name, file or line
// table it points to, or first line) means another object: it is read
// anew. A read that fails (the process exited, an address that holds no
// code object) is an error; nothing is cached for it.
//
// Every byte read is distrusted: the object's type must be PyCode_Type
// (when the interpreter's symbol tables name it), string and bytes sizes
// are bounded, non-compact strings are refused.
// Owns: its cache (bounded: cleared when it holds kMaxCodeObjects).
// Thread safety: none; one reader per process, on one thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"
#include "cpython/interpreter.hpp"
#include "cpython/remote_memory.hpp"

namespace strobe::cpython {

inline constexpr size_t kMaxCodeObjects = 1 << 16;
inline constexpr size_t kMaxNameChars = 4096;
inline constexpr size_t kMaxLineTableBytes = 1 << 20;

struct CodeObject {
  std::string qualname;  // UTF-8
  std::string filename;  // UTF-8, as the code object states it
  int32_t first_line = 0;
  uint32_t code_units = 0;  // of bytecode (ob_size)
  uint32_t adaptive = 0;    // the bytecode's offset in the object (Layout::code_adaptive)
  std::vector<uint8_t> line_table;
  // Tells this reading from any other of the same CodeReader (a code object
  // read again at a reused address gets a new serial).
  uint64_t serial = 0;

  // The line of the instruction at byte `offset` from the object's start
  // (RuntimeFrame::offset); 0 when the table gives none. An offset before
  // the first code unit (a frame not started yet) is the first unit.
  [[nodiscard]] uint32_t lineAt(uint32_t offset) const;
};

struct CodeReaderStats {
  uint64_t named = 0;     // code objects read and named
  uint64_t checks = 0;    // headers read again to check a cached entry
  uint64_t replaced = 0;  // of those: another object lived there now
  uint64_t failures = 0;  // reads that failed or found no code object
};

class CodeReader {
 public:
  CodeReader(const Interpreter& interpreter, const RemoteMemory& memory)
      : in_(interpreter), mem_(memory) {}

  // The code object at `address` (see above). The pointer stays valid
  // until the next call.
  Result<const CodeObject*> code(uint64_t address);
  void nextEpoch() { ++epoch_; }
  [[nodiscard]] const CodeReaderStats& stats() const { return stats_; }

 private:
  struct Header {
    uint64_t type = 0, size = 0, filename = 0, name = 0, qualname = 0, linetable = 0;
    int32_t first_line = 0;
    bool operator==(const Header&) const = default;
  };
  struct Entry {
    Header header;
    uint64_t epoch = 0;
    CodeObject code;
  };
  Result<Header> readHeader(uint64_t address);
  Result<CodeObject> readCode(const Header& h);
  Result<std::string> readString(uint64_t address);
  Result<std::vector<uint8_t>> readBytes(uint64_t address);

  const Interpreter& in_;
  const RemoteMemory& mem_;
  std::unordered_map<uint64_t, Entry> cache_;
  uint64_t epoch_ = 1;
  uint64_t next_serial_ = 1;
  CodeReaderStats stats_;
};

// A Python str of `length` characters of `kind` (1, 2 or 4 bytes each:
// Latin-1, UCS-2, UCS-4) as UTF-8; characters that are not Unicode scalar
// values (lone surrogates) become U+FFFD.
std::string utf8FromPython(const uint8_t* data, size_t length, unsigned kind);

}  // namespace strobe::cpython
