// eachUnit: calls `fn(cudie, where, sections)` for every `stride`-th
// compile unit of an ELF file (compressed sections inflated as strobe
// does), for the tests that hold strobe's DWARF readers to libdw unit by
// unit. `where` names the file and unit for failure messages. False, with
// a test failure added, when the file or its DWARF cannot be opened.
// libcDebugFile(): the separate debug file of the system's libc
// (libc6-dbg, installed by scripts/deps.sh).
#pragma once

#include <elfutils/libdw.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "symbolize/debug_file.hpp"
#include "symbolize/debug_sections.hpp"
#include "symbolize/elf_file.hpp"

namespace strobe::symbolize::testing {

template <typename Fn>
bool eachUnit(const std::string& path, size_t stride, Fn&& fn) {
  auto elf = ElfFile::open(path);
  if (!elf) {
    ADD_FAILURE() << path << ": " << elf.error().message;
    return false;
  }
  EXPECT_TRUE(elf->inflateDebugSections().ok()) << path;
  Dwarf* dwarf = ::dwarf_begin_elf(elf->elf(), DWARF_C_READ, nullptr);
  if (dwarf == nullptr) {
    ADD_FAILURE() << path << ": libdw reads no DWARF";
    return false;
  }
  const DebugSections sections = debugSections(elf->elf());
  Dwarf_Off off = 0;
  Dwarf_Off next = 0;
  size_t header = 0;
  for (size_t n = 0; ::dwarf_nextcu(dwarf, off, &next, &header, nullptr, nullptr, nullptr) == 0;
       off = next, ++n) {
    Dwarf_Die cudie;
    if (n % stride != 0 || ::dwarf_offdie(dwarf, off + header, &cudie) == nullptr) continue;
    fn(&cudie, path + " unit at " + std::to_string(off), sections);
  }
  ::dwarf_end(dwarf);
  return true;
}

inline std::optional<std::string> libcDebugFile() {
  auto libc = ElfFile::open("/lib/x86_64-linux-gnu/libc.so.6");
  if (!libc) return std::nullopt;
  return findDebugFile(*libc, {"/usr/lib/debug"});
}

}  // namespace strobe::symbolize::testing
