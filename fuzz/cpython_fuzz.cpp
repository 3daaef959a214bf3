// What strobe reads from a CPython process's memory, which any program can
// fill: a code object's line table (co_linetable), the interpreter's
// _Py_DebugOffsets, and str data of each kind. Input: three parts
// (fuzz_input.hpp's separator): the line table (its first 4 bytes the first
// line), the _Py_DebugOffsets bytes, str bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpython/code_reader.hpp"
#include "cpython/layout.hpp"
#include "cpython/line_table.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  const auto parts = fuzz::splitParts({data, size}, 3);
  fuzz::Bytes table = parts[0];
  const auto first_line = static_cast<int32_t>(fuzz::takeInt(table, 4));
  std::vector<cpython::LineRange> ranges;
  cpython::decodeLineTable(table.data(), table.size(), first_line, ranges);
  uint32_t covered = 0;
  for (const cpython::LineRange& r : ranges) {
    if (r.start != covered || r.end <= r.start || r.end - r.start > 8) std::abort();
    covered = r.end;
  }
  for (uint32_t unit : {0u, 1u, 7u, covered / 2, covered, covered + 1, UINT32_MAX}) {
    const int32_t line = cpython::lineAt(table.data(), table.size(), first_line, unit);
    if (unit >= covered && line != -1) std::abort();  // no entry covers it
  }
  auto layout = cpython::debugOffsetsLayout(parts[1].data(), parts[1].size());
  if (layout.ok()) {
    (void)layout->frameReadSize();
    (void)cpython::layoutDifference(*layout, *cpython::tableLayout(0x030d00f0));
  }
  for (unsigned kind : {1u, 2u, 4u}) {
    (void)cpython::utf8FromPython(parts[2].data(), parts[2].size() / kind, kind);
  }
  return 0;
}
