// DieAttrs: the first attribute of each wanted name on one DIE, read in a
// single dwarf_getattrs pass (dwarf_attr would scan the DIE once per name).
// `Names` lists the DW_AT_* values; slot i holds names[i], as dwarf_attr
// would find it (the first occurrence). Used by the unit index builder and
// the function-name resolver. Thread safety: a value type; libdw reads
// through the DIE's own handle.
#pragma once

#include <elfutils/libdw.h>

#include <array>
#include <cstddef>

namespace strobe::symbolize {

template <unsigned... Names>
struct DieAttrs {
  static constexpr std::array<unsigned, sizeof...(Names)> kNames{Names...};
  std::array<Dwarf_Attribute, sizeof...(Names)> attr{};
  std::array<bool, sizeof...(Names)> has{};

  // False when libdw cannot read the DIE's attributes.
  bool read(Dwarf_Die* die) { return ::dwarf_getattrs(die, &collect, this, 0) >= 0; }

 private:
  static int collect(Dwarf_Attribute* a, void* arg) {
    auto* self = static_cast<DieAttrs*>(arg);
    const unsigned name = ::dwarf_whatattr(a);
    for (size_t i = 0; i < kNames.size(); ++i) {
      if (kNames[i] != name) continue;
      if (!self->has[i]) {
        self->attr[i] = *a;
        self->has[i] = true;
      }
      break;
    }
    return DWARF_CB_OK;
  }
};

}  // namespace strobe::symbolize
