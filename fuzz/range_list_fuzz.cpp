// Range lists (.debug_rnglists of DWARF 5, .debug_ranges of DWARF 4) under
// one fixed unit: a compile unit with a base address and two functions
// (one with an inlined call) whose DW_AT_ranges point into the fuzzed
// section. strobe's scan reads DW_FORM_sec_offset lists itself; libdw
// reads DW_FORM_rnglistx ones and everything strobe's scan leaves; both
// feed the unit's index and lookups.
//
// Input: a flags byte (bit 0: DWARF 5, bit 1: DW_FORM_rnglistx, bit 2:
// 4-byte addresses), the unit's base address (8 bytes), each function's
// list offset (4 bytes, three of them), then the section's bytes.
#include <dwarf.h>

#include <cstdint>
#include <vector>

#include "fuzz/dwarf_fuzz_util.hpp"

namespace {

void uleb(std::vector<uint8_t>& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(v != 0 ? b | 0x80 : b);
  } while (v != 0);
}

void fixed(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe::fuzz;
  Bytes in{data, size};
  const uint64_t flags = takeInt(in, 1);
  const bool v5 = (flags & 1) != 0;
  const bool indexed = v5 && (flags & 2) != 0;
  const int addr_size = (flags & 4) != 0 ? 4 : 8;
  const uint64_t base = takeInt(in, 8);
  uint64_t lists[3];
  for (uint64_t& l : lists) l = takeInt(in, 4);
  const unsigned ranges_form = indexed ? DW_FORM_rnglistx : DW_FORM_sec_offset;

  std::vector<uint8_t> abbrev;
  // 1: the unit (name, low_pc, and with rnglistx the lists' base).
  uleb(abbrev, 1);
  uleb(abbrev, DW_TAG_compile_unit);
  abbrev.push_back(DW_CHILDREN_yes);
  for (unsigned v : {unsigned{DW_AT_name}, unsigned{DW_FORM_string}, unsigned{DW_AT_low_pc},
                     unsigned{DW_FORM_addr}}) {
    uleb(abbrev, v);
  }
  if (indexed) {
    uleb(abbrev, DW_AT_rnglists_base);
    uleb(abbrev, DW_FORM_sec_offset);
  }
  abbrev.insert(abbrev.end(), {0, 0});
  // 2: a function with an inlined call below it; 3: the inlined call; 4: a leaf function.
  uleb(abbrev, 2);
  uleb(abbrev, DW_TAG_subprogram);
  abbrev.push_back(DW_CHILDREN_yes);
  for (unsigned v :
       {unsigned{DW_AT_name}, unsigned{DW_FORM_string}, unsigned{DW_AT_ranges}, ranges_form}) {
    uleb(abbrev, v);
  }
  abbrev.insert(abbrev.end(), {0, 0});
  uleb(abbrev, 3);
  uleb(abbrev, DW_TAG_inlined_subroutine);
  abbrev.push_back(DW_CHILDREN_no);
  for (unsigned v : {unsigned{DW_AT_abstract_origin}, unsigned{DW_FORM_ref4},
                     unsigned{DW_AT_ranges}, ranges_form, unsigned{DW_AT_call_file},
                     unsigned{DW_FORM_data1}, unsigned{DW_AT_call_line}, unsigned{DW_FORM_data1}}) {
    uleb(abbrev, v);
  }
  abbrev.insert(abbrev.end(), {0, 0});
  uleb(abbrev, 4);
  uleb(abbrev, DW_TAG_subprogram);
  abbrev.push_back(DW_CHILDREN_no);
  for (unsigned v :
       {unsigned{DW_AT_name}, unsigned{DW_FORM_string}, unsigned{DW_AT_ranges}, ranges_form}) {
    uleb(abbrev, v);
  }
  abbrev.insert(abbrev.end(), {0, 0, 0});

  // The unit's DIEs, then its header in front.
  std::vector<uint8_t> dies;
  auto list = [&](uint64_t at) {
    if (indexed) {
      uleb(dies, at % 8);  // an index into the offsets after the section's header
    } else {
      fixed(dies, at, 4);
    }
  };
  const size_t header = v5 ? 12 : 11;
  uleb(dies, 1);
  dies.insert(dies.end(), {'u', '.', 'c', 0});
  fixed(dies, base, addr_size);
  if (indexed) fixed(dies, 12, 4);  // just past a 32-bit rnglists header
  const size_t outer = header + dies.size();
  uleb(dies, 2);
  dies.insert(dies.end(), {'f', 0});
  list(lists[0]);
  uleb(dies, 3);
  fixed(dies, outer, 4);
  list(lists[1]);
  dies.insert(dies.end(), {1, 7});
  dies.push_back(0);  // end of f's children
  uleb(dies, 4);
  dies.insert(dies.end(), {'g', 0});
  list(lists[2]);
  dies.push_back(0);  // end of the unit's children

  std::vector<uint8_t> info;
  fixed(info, header - 4 + dies.size(), 4);
  if (v5) {
    fixed(info, 5, 2);
    info.push_back(DW_UT_compile);
    info.push_back(static_cast<uint8_t>(addr_size));
    fixed(info, 0, 4);
  } else {
    fixed(info, 4, 2);
    fixed(info, 0, 4);
    info.push_back(static_cast<uint8_t>(addr_size));
  }
  info.insert(info.end(), dies.begin(), dies.end());

  std::vector<Section> sections = {{".debug_info", {info.data(), info.size()}},
                                   {".debug_abbrev", {abbrev.data(), abbrev.size()}},
                                   {v5 ? ".debug_rnglists" : ".debug_ranges", in}};
  DwarfImage image(sections);
  exerciseDwarf(image.elf());
  return 0;
}
