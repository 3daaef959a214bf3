// DWARF debugging information entries as strobe reads them: its own DIE
// reader and scope scan (die_reader, scope_scan), the line programs and
// range lists they lead to, libdw's walk where strobe's gives up, the
// index built from both and the names of each frame found.
//
// Input parts (fuzz_input.hpp): .debug_info, .debug_abbrev, .debug_str,
// .debug_line, .debug_line_str, .debug_str_offsets, .debug_addr,
// .debug_rnglists, .debug_ranges, .debug_aranges; the seeds are these
// sections of small programs from GCC and Clang (fuzz/README.md).
#include <cstdint>
#include <vector>

#include "fuzz/dwarf_fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe::fuzz;
  static const char* const kNames[] = {
      ".debug_info",        ".debug_abbrev", ".debug_str",      ".debug_line",   ".debug_line_str",
      ".debug_str_offsets", ".debug_addr",   ".debug_rnglists", ".debug_ranges", ".debug_aranges"};
  constexpr size_t kCount = sizeof kNames / sizeof kNames[0];
  auto parts = splitParts({data, size}, kCount);
  std::vector<Section> sections;
  for (size_t i = 0; i < kCount; ++i) {
    if (!parts[i].empty()) sections.push_back(Section{kNames[i], parts[i]});
  }
  DwarfImage image(sections);
  exerciseDwarf(image.elf());
  return 0;
}
