// UnitReader::open on units whose stated length runs past .debug_info
// (found by fuzz/die_fuzz.cpp: libdw's dwarf_next_unit does not check it,
// and the scope scan then read past the section). Such a unit is left to
// libdw; a unit that fits is read.
#include "symbolize/die_reader.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gtest/gtest.h>
#include <libelf.h>

#include <vector>

#include "fuzz/fuzz_input.hpp"

namespace strobe::symbolize {
namespace {

// Whether a UnitReader opens the first unit of an ELF file holding these
// .debug_info and .debug_abbrev bytes.
bool opensFirstUnit(const std::vector<uint8_t>& info, const std::vector<uint8_t>& abbrev) {
  ::elf_version(EV_CURRENT);
  std::vector<uint8_t> image = fuzz::elfImage({{".debug_info", {info.data(), info.size()}},
                                               {".debug_abbrev", {abbrev.data(), abbrev.size()}}});
  Elf* elf = ::elf_memory(reinterpret_cast<char*>(image.data()), image.size());
  Dwarf* dwarf = elf != nullptr ? ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr) : nullptr;
  bool opened = false;
  Dwarf_CU* cu = nullptr;
  Dwarf_Die cudie;
  if (dwarf != nullptr &&
      ::dwarf_get_units(dwarf, nullptr, &cu, nullptr, nullptr, &cudie, nullptr) == 0) {
    UnitReader reader;
    opened = reader.open(cu);
  }
  if (dwarf != nullptr) ::dwarf_end(dwarf);
  if (elf != nullptr) ::elf_end(elf);
  return opened;
}

TEST(DieReader, UnitPastTheSectionIsLeftToLibdw) {
  // One compile unit with a name, DWARF 4, 8-byte addresses.
  const std::vector<uint8_t> abbrev = {
      1, DW_TAG_compile_unit, DW_CHILDREN_no, DW_AT_name, DW_FORM_string, 0, 0, 0};
  std::vector<uint8_t> info = {0, 0,   0,   0,  // unit_length, below
                               4, 0,            // version
                               0, 0,   0,   0,  // abbrev offset
                               8,               // address size
                               1, 'u', '.', 'c', 0};
  info[0] = static_cast<uint8_t>(info.size() - 4);
  EXPECT_TRUE(opensFirstUnit(info, abbrev));
  info[0] = 200;  // the unit says it runs 184 bytes past the section
  EXPECT_FALSE(opensFirstUnit(info, abbrev));
}

}  // namespace
}  // namespace strobe::symbolize
