// UnitReader: one DWARF unit's DIEs read straight from their bytes, for the
// hot paths that would otherwise visit every DIE through libdw (the scope
// scan, scope_scan.hpp; function names, dwarf_index.cpp).
//
// libdw still parses: the unit header (dwarf_cu_die, dwarf_next_unit), each
// abbreviation (dwarf_tag and dwarf_getattrs on the first DIE that uses it)
// and every value strobe keeps (dwarf_formstring, dwarf_formudata, ... on a
// Dwarf_Attribute pointing into the same bytes). strobe only steps over
// values by their forms' sizes and over subtrees by DW_AT_sibling, and
// finds a DIE's attributes without decoding the others: libdw's
// dwarf_getattrs decodes each attribute of each DIE it passes.
//
// open() refuses what it does not read (unit sizes other than 4/8, a
// big-endian file); abbrev() fails on unknown forms or truncated data.
// Callers then use libdw's API for the unit. Never reads outside the unit.
// Borrows: the unit's bytes (the Dwarf handle's); valid while it lives.
// Thread safety: one thread at a time (abbreviations are learnt lazily).
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace strobe::symbolize {

inline constexpr uint16_t kVariableSize = UINT16_MAX;  // an abbreviation's size depends on values

// What a reader keeps of one abbreviation.
struct Abbrev {
  bool known = false;
  bool children = false;
  int tag = 0;
  uint16_t fixed = kVariableSize;  // byte size of all values when every form has a fixed size
  int8_t sibling = -1;             // index of DW_AT_sibling in attrs
  struct Attr {
    unsigned name;
    unsigned form;
    int64_t implicit;  // DW_FORM_implicit_const's value
    int size = -1;     // the value's byte size when the form fixes it, else -1
  };
  std::vector<Attr> attrs;
  // For the DieAttrs whose name list is at `slots_of` (the last one to read
  // a DIE of this abbreviation): each attribute's slot in it, -1 when not
  // wanted. Learnt on first use, so a read compares no names.
  mutable const void* slots_of = nullptr;
  mutable std::vector<int8_t> slots;
};

class UnitReader {
 public:
  // False when this unit is left to libdw.
  bool open(Dwarf_CU* cu);

  [[nodiscard]] const uint8_t* unitDie() const { return first_; }
  [[nodiscard]] const uint8_t* end() const { return end_; }
  [[nodiscard]] unsigned version() const { return version_; }
  [[nodiscard]] int offsetSize() const { return offset_size_; }
  [[nodiscard]] int addressSize() const { return address_size_; }
  [[nodiscard]] Dwarf_CU* cu() const { return cu_; }
  // The .debug_info offset of a DIE starting at `p`.
  [[nodiscard]] uint64_t offsetOf(const uint8_t* p) const {
    return unit_die_offset_ + static_cast<uint64_t>(p - first_);
  }
  // The DIE at `offset` in .debug_info when it lies in this unit, else nullptr.
  [[nodiscard]] const uint8_t* at(uint64_t offset) const;
  // The .debug_info offset a reference of `form` with its value at `p`
  // points to, as dwarf_formref_die resolves it (DW_FORM_ref1 to ref8 and
  // ref_udata count from the unit's header, DW_FORM_ref_addr from the
  // section's start); 0 for other forms and data past the unit.
  [[nodiscard]] uint64_t reference(unsigned form, const uint8_t* p) const;

  // The abbreviation of the DIE at `p`, advancing past its code; nullptr
  // for a null entry (p advanced past it) or on error (failed() is true).
  const Abbrev* abbrev(const uint8_t*& p) {
    // Most codes take one byte and name an abbreviation already learnt.
    if (p < end_ && *p < 0x80) {
      const uint8_t code = *p;
      if (code == 0) {
        ++p;
        return nullptr;
      }
      if (code < abbrevs_.size() && abbrevs_[code].known) {
        ++p;
        return &abbrevs_[code];
      }
    }
    return abbrevSlow(p);
  }
  [[nodiscard]] bool failed() const { return failed_; }
  // Steps over one value of `form`, over all of a DIE's values (p: just
  // past its code), or over a DIE's children (p: just past its values).
  bool skipForm(unsigned form, const uint8_t*& p) const;
  bool skipValues(const Abbrev& a, const uint8_t*& p) const;
  bool skipChildren(const uint8_t*& p);
  // Where DW_AT_sibling of a DIE points (values start at `p`, end at
  // `after`); nullptr when absent or not ahead of `after`.
  [[nodiscard]] const uint8_t* siblingOf(const Abbrev& a, const uint8_t* p,
                                         const uint8_t* after) const;

  static bool uleb(const uint8_t*& p, const uint8_t* end, uint64_t& out);

 private:
  // The .debug_info offset of the unit's header.
  [[nodiscard]] uint64_t unitOffset() const {
    return unit_die_offset_ - static_cast<uint64_t>(first_ - unit_start_);
  }
  int formSize(unsigned form) const;
  bool skipForm(unsigned form, const uint8_t*& p, int depth) const;
  bool learn(const uint8_t* die_at, Abbrev& a);
  const Abbrev* abbrevSlow(const uint8_t*& p);
  template <typename T>
  bool fixedValue(const uint8_t*& p, uint64_t& out) const {
    if (static_cast<size_t>(end_ - p) < sizeof(T)) return false;
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    out = v;
    return true;
  }

  Dwarf_CU* cu_ = nullptr;
  std::vector<Abbrev> abbrevs_;  // by code
  unsigned version_ = 0;
  int address_size_ = 8;
  int offset_size_ = 4;
  int ref_addr_size_ = 4;
  uint64_t unit_die_offset_ = 0;
  const uint8_t* unit_start_ = nullptr;  // the unit header
  const uint8_t* first_ = nullptr;       // the unit DIE
  const uint8_t* end_ = nullptr;
  bool failed_ = false;
};

// A little-endian value of type T at p (the reader's units are little-endian).
template <typename T>
T littleEndian(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The first attribute of each wanted name on one DIE (slot i holds
// Names[i], as dwarf_attr would find it), read by a UnitReader or, for a
// unit it does not read, by one libdw dwarf_getattrs pass.
template <unsigned... Names>
struct DieAttrs {
  static constexpr std::array<unsigned, sizeof...(Names)> kNames{Names...};
  // attr[i] and implicit[i] are set when has[i] is (left uninitialised: a
  // scan fills one of these per function DIE).
  std::array<Dwarf_Attribute, sizeof...(Names)> attr;
  std::array<bool, sizeof...(Names)> has{};
  std::array<int64_t, sizeof...(Names)> implicit;  // of DW_FORM_implicit_const values
  bool from_reader = false;           // read from a UnitReader's unit: little-endian, checked sizes
  const uint8_t* unit_end = nullptr;  // that unit's end

  // The DIE whose values start at `p` (just past its code), advancing p
  // past them; false on data the reader cannot step over.
  bool read(const UnitReader& r, const Abbrev& a, const uint8_t*& p) {
    static_assert(sizeof...(Names) < 128, "slots are int8_t");
    if (a.slots_of != kNames.data()) {
      a.slots.assign(a.attrs.size(), -1);
      for (size_t j = 0; j < a.attrs.size(); ++j) {
        for (size_t i = 0; i < kNames.size(); ++i) {
          if (kNames[i] == a.attrs[j].name) {
            a.slots[j] = static_cast<int8_t>(i);
            break;
          }
        }
      }
      a.slots_of = kNames.data();
    }
    const uint8_t* end = r.end();
    for (size_t j = 0; j < a.attrs.size(); ++j) {
      const Abbrev::Attr& at = a.attrs[j];
      const int i = a.slots[j];
      if (i >= 0 && !has[i]) {
        attr[i] = Dwarf_Attribute{at.name, at.form, const_cast<uint8_t*>(p), r.cu()};
        implicit[i] = at.implicit;
        has[i] = true;
      }
      if (at.size >= 0) {
        if (end - p < at.size) return false;
        p += at.size;
      } else if (!r.skipForm(at.form, p)) {
        return false;
      }
    }
    from_reader = true;
    unit_end = end;
    return true;
  }
  // Through libdw; false when libdw cannot read the DIE's attributes.
  bool read(Dwarf_Die* die) {
    from_reader = false;
    return ::dwarf_getattrs(die, &collect, this, 0) >= 0;
  }

  // Slot i's value as an unsigned constant; nullopt when absent or not one.
  [[nodiscard]] std::optional<uint64_t> constant(size_t i) const {
    if (!has[i]) return std::nullopt;
    if (attr[i].form == DW_FORM_implicit_const) return static_cast<uint64_t>(implicit[i]);
    if (from_reader) {
      // The usual forms, as dwarf_formudata reads them; their sizes were
      // checked when the reader stepped over them.
      const uint8_t* v = attr[i].valp;
      switch (attr[i].form) {
        case DW_FORM_data1:
          return v[0];
        case DW_FORM_data2:
          return littleEndian<uint16_t>(v);
        case DW_FORM_data4:
          return littleEndian<uint32_t>(v);
        case DW_FORM_data8:
          return littleEndian<uint64_t>(v);
        case DW_FORM_udata: {
          uint64_t out = 0;
          if (UnitReader::uleb(v, unit_end, out)) return out;
          break;
        }
        default:
          break;
      }
    }
    Dwarf_Word v = 0;
    Dwarf_Attribute a = attr[i];
    if (::dwarf_formudata(&a, &v) != 0) return std::nullopt;
    return v;
  }
  [[nodiscard]] uint64_t udata(size_t i) const { return constant(i).value_or(0); }
  [[nodiscard]] Dwarf_Attribute* get(size_t i) { return has[i] ? &attr[i] : nullptr; }

 private:
  static int collect(Dwarf_Attribute* a, void* arg) {
    auto* self = static_cast<DieAttrs*>(arg);
    const unsigned name = ::dwarf_whatattr(a);
    for (size_t i = 0; i < kNames.size(); ++i) {
      if (kNames[i] != name) continue;
      if (!self->has[i]) {
        self->attr[i] = *a;
        self->has[i] = true;
        Dwarf_Sword v = 0;
        if (a->form == DW_FORM_implicit_const && ::dwarf_formsdata(a, &v) == 0) {
          self->implicit[i] = v;
        }
      }
      break;
    }
    return DWARF_CB_OK;
  }
};

// ---- inline: the scan calls these for every value it steps over ----

inline bool skipLeb(const uint8_t*& p, const uint8_t* end) {
  while (p < end) {
    if ((*p++ & 0x80) == 0) return true;
  }
  return false;
}

inline bool UnitReader::uleb(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
  out = 0;
  for (unsigned shift = 0; p < end; shift += 7) {
    uint8_t byte = *p++;
    if (shift < 64) out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The byte size of a form with a fixed size, 0 for none, kVariableSize when
// its size comes with its value, -1 for a form not known.
inline int UnitReader::formSize(unsigned form) const {
  switch (form) {
    case DW_FORM_flag_present:
    case DW_FORM_implicit_const:
      return 0;
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag:
    case DW_FORM_strx1:
    case DW_FORM_addrx1:
      return 1;
    case DW_FORM_data2:
    case DW_FORM_ref2:
    case DW_FORM_strx2:
    case DW_FORM_addrx2:
      return 2;
    case DW_FORM_strx3:
    case DW_FORM_addrx3:
      return 3;
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_strx4:
    case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
      return 4;
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8:
      return 8;
    case DW_FORM_data16:
      return 16;
    case DW_FORM_addr:
      return address_size_;
    case DW_FORM_ref_addr:
      return ref_addr_size_;
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt:
    case DW_FORM_GNU_strp_alt:
      return offset_size_;
    case DW_FORM_sdata:
    case DW_FORM_udata:
    case DW_FORM_ref_udata:
    case DW_FORM_strx:
    case DW_FORM_addrx:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
    case DW_FORM_string:
    case DW_FORM_block:
    case DW_FORM_block1:
    case DW_FORM_block2:
    case DW_FORM_block4:
    case DW_FORM_exprloc:
    case DW_FORM_indirect:
      return kVariableSize;
    default:
      return -1;
  }
}

inline bool UnitReader::skipForm(unsigned form, const uint8_t*& p) const {
  return skipForm(form, p, 0);
}

inline bool UnitReader::skipForm(unsigned form, const uint8_t*& p, int depth) const {
  int size = formSize(form);
  if (size < 0) return false;
  if (size != kVariableSize) {
    if (end_ - p < size) return false;
    p += size;
    return true;
  }
  uint64_t len = 0;
  switch (form) {
    case DW_FORM_string: {
      const void* nul = std::memchr(p, 0, static_cast<size_t>(end_ - p));
      if (nul == nullptr) return false;
      p = static_cast<const uint8_t*>(nul) + 1;
      return true;
    }
    case DW_FORM_block1:
      if (!fixedValue<uint8_t>(p, len)) return false;
      break;
    case DW_FORM_block2:
      if (!fixedValue<uint16_t>(p, len)) return false;
      break;
    case DW_FORM_block4:
      if (!fixedValue<uint32_t>(p, len)) return false;
      break;
    case DW_FORM_block:
    case DW_FORM_exprloc:
      if (!uleb(p, end_, len)) return false;
      break;
    case DW_FORM_indirect: {
      uint64_t f = 0;
      if (depth > 0 || !uleb(p, end_, f) || f > UINT32_MAX) return false;
      return skipForm(static_cast<unsigned>(f), p, depth + 1);
    }
    default:
      return skipLeb(p, end_);
  }
  if (len > static_cast<uint64_t>(end_ - p)) return false;
  p += len;
  return true;
}

inline bool UnitReader::skipValues(const Abbrev& a, const uint8_t*& p) const {
  if (a.fixed != kVariableSize) {
    if (end_ - p < a.fixed) return false;
    p += a.fixed;
    return true;
  }
  for (const Abbrev::Attr& at : a.attrs) {
    if (!skipForm(at.form, p)) return false;
  }
  return true;
}

}  // namespace strobe::symbolize
