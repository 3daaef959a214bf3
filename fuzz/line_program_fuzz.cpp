// DWARF line-number programs (DWARF 2 to 5) through strobe's decoder
// (line_program.hpp), straight from the section bytes: every program in
// .debug_line, one after another, with the string sections its file
// tables may point into.
//
// Input parts (fuzz_input.hpp): .debug_line, .debug_line_str, .debug_str,
// and the unit's DW_AT_comp_dir (text, absent when empty).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "symbolize/debug_sections.hpp"
#include "symbolize/line_program.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  auto parts = fuzz::splitParts({data, size}, 4);
  symbolize::DebugSections s;
  s.line = parts[0];
  s.line_str = parts[1];
  s.str = parts[2];
  const std::string comp_dir(fuzz::asText(parts[3]).substr(0, fuzz::asText(parts[3]).find('\0')));
  std::vector<std::string> files;
  std::vector<symbolize::LineRow> rows;
  // Each program starts where the previous one's unit_length ends.
  for (uint64_t offset = 0; offset + 4 <= s.line.size();) {
    if (symbolize::readLineProgram(s, offset, comp_dir.empty() ? nullptr : comp_dir.c_str(), files,
                                   rows)) {
      for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].order != i) std::abort();  // rows come in program order
      }
    }
    uint64_t length = 0;
    std::memcpy(&length, s.line.data() + offset, 4);
    if (length == 0xffffffff) {
      if (offset + 12 > s.line.size()) break;
      std::memcpy(&length, s.line.data() + offset + 4, 8);
      length += 8;
    }
    if (length > s.line.size()) break;
    offset += 4 + length;
  }
  return 0;
}
