// jitdump files (jit-PID.dump, written by any JIT runtime, so by any
// program): the whole-file parser, then the same bytes read the way a
// recording follows a growing file (header, then record by record from a
// buffer that ends anywhere). Neither may crash, read out of bounds or
// loop; a record it accepts must lie inside the bytes and move the cursor.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "symbolize/jitdump.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe::symbolize;
  const std::span<const uint8_t> bytes(data, size);
  JitdumpFile file = parseJitdump(bytes);
  for (const JitdumpRecord& r : file.records) {
    if (r.size < kJitdumpPrefixSize || r.size > size) std::abort();
    if (r.code.size() != 0 &&
        (r.code.data() < data || r.code.data() + r.code.size() > data + size)) {
      std::abort();
    }
    if (r.code.size() != 0 && r.code.size() != r.code_size) std::abort();
    for (const JitdumpLine& l : r.lines) {
      if (!l.file.empty() &&
          (reinterpret_cast<const uint8_t*>(l.file.data()) < data ||
           reinterpret_cast<const uint8_t*>(l.file.data()) + l.file.size() > data + size)) {
        std::abort();
      }
    }
  }
  // Incremental: the first byte says where the bytes "end for now".
  if (size == 0) return 0;
  const size_t visible = 1 + data[0] * size / 256;
  JitdumpHeader h;
  std::string problem;
  if (parseJitdumpHeader(bytes.first(visible), h, problem) != JitdumpStatus::kOk) return 0;
  size_t at = h.header_size;
  size_t records = 0;
  while (at < size) {
    const size_t end = std::min(size, at + visible);
    JitdumpRecord r;
    JitdumpStatus st = parseJitdumpRecord(bytes.subspan(at, end - at), h.swapped, r, problem);
    if (st != JitdumpStatus::kOk) break;
    if (r.size == 0 || r.size > end - at) std::abort();
    at += r.size;
    ++records;
  }
  if (records > size / kJitdumpPrefixSize + 1) std::abort();
  return 0;
}
