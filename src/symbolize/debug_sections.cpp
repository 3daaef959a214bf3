#include "symbolize/debug_sections.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <string_view>

namespace strobe::symbolize {

DebugSections debugSections(Elf* elf) {
  DebugSections s;
  size_t shstrndx = 0;
  if (elf == nullptr || ::elf_getshdrstrndx(elf, &shstrndx) != 0) return s;
  const std::pair<std::string_view, std::span<const uint8_t>*> wanted[] = {
      {".debug_info", &s.info},         {".debug_line", &s.line},
      {".debug_line_str", &s.line_str}, {".debug_str", &s.str},
      {".debug_ranges", &s.ranges},     {".debug_rnglists", &s.rnglists},
      {".debug_aranges", &s.aranges},
  };
  for (Elf_Scn* scn = ::elf_nextscn(elf, nullptr); scn != nullptr; scn = ::elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr || sh.sh_type == SHT_NOBITS) continue;
    if ((sh.sh_flags & SHF_COMPRESSED) != 0) continue;
    const char* name = ::elf_strptr(elf, shstrndx, sh.sh_name);
    if (name == nullptr) continue;
    for (const auto& [n, to] : wanted) {
      if (n != name) continue;
      Elf_Data* d = ::elf_getdata(scn, nullptr);
      if (d != nullptr && d->d_buf != nullptr)
        *to = {static_cast<const uint8_t*>(d->d_buf), d->d_size};
    }
  }
  return s;
}

}  // namespace strobe::symbolize
