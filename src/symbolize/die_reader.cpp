#include "symbolize/die_reader.hpp"

#include "symbolize/debug_sections.hpp"

#include <dwarf.h>
#include <elf.h>
#include <libelf.h>

#include <bit>
#include <span>

namespace strobe::symbolize {
namespace {

constexpr uint32_t kMaxCode = 1u << 16;  // larger abbreviation codes: left to libdw

}  // namespace

bool UnitReader::open(Dwarf_CU* cu) {
  Dwarf_Die cudie;
  Dwarf_Half version = 0;
  Dwarf_Off abbrev_offset = 0;
  uint8_t address_size = 0;
  uint8_t offset_size = 0;
  if (cu == nullptr || ::dwarf_cu_die(cu, &cudie, &version, &abbrev_offset, &address_size,
                                      &offset_size, nullptr, nullptr) == nullptr) {
    return false;
  }
  if (address_size != 4 && address_size != 8) return false;
  if (offset_size != 4 && offset_size != 8) return false;
  Dwarf* dwarf = ::dwarf_cu_getdwarf(cu);
  Elf* elf = dwarf != nullptr ? ::dwarf_getelf(dwarf) : nullptr;
  const char* ident = elf != nullptr ? ::elf_getident(elf, nullptr) : nullptr;
  if (ident == nullptr || ident[EI_DATA] != ELFDATA2LSB ||
      std::endian::native != std::endian::little) {
    return false;
  }
  // The unit's bytes: from its header to the next unit.
  const Dwarf_Off die_off = ::dwarf_dieoffset(&cudie);
  const Dwarf_Off in_unit = ::dwarf_cuoffset(&cudie);
  if (in_unit > die_off) return false;
  Dwarf_Off next = 0;
  if (::dwarf_next_unit(dwarf, die_off - in_unit, &next, nullptr, nullptr, nullptr, nullptr,
                        nullptr, nullptr, nullptr) != 0 ||
      next <= die_off) {
    return false;
  }
  // The unit must lie in .debug_info: dwarf_next_unit does not check a
  // unit's length against the section (a hostile length made the scan read
  // past it; found by fuzz/die_fuzz.cpp).
  const auto* first = static_cast<const uint8_t*>(cudie.addr);
  const std::span<const uint8_t> info = debugSections(elf).info;
  if (first < info.data() + in_unit ||
      next - die_off > static_cast<uint64_t>(info.data() + info.size() - first)) {
    return false;
  }
  cu_ = cu;
  version_ = version;
  address_size_ = address_size;
  offset_size_ = offset_size;
  ref_addr_size_ = version < 3 ? address_size : offset_size;
  unit_die_offset_ = die_off;
  first_ = first;
  unit_start_ = first_ - in_unit;
  end_ = first_ + (next - die_off);
  return true;
}

const uint8_t* UnitReader::at(uint64_t offset) const {
  if (offset < unit_die_offset_) return nullptr;
  uint64_t in = offset - unit_die_offset_;
  return in < static_cast<uint64_t>(end_ - first_) ? first_ + in : nullptr;
}

uint64_t UnitReader::reference(unsigned form, const uint8_t* p) const {
  uint64_t v = 0;
  bool ok = false;
  switch (form) {
    case DW_FORM_ref1:
      ok = fixedValue<uint8_t>(p, v);
      break;
    case DW_FORM_ref2:
      ok = fixedValue<uint16_t>(p, v);
      break;
    case DW_FORM_ref4:
      ok = fixedValue<uint32_t>(p, v);
      break;
    case DW_FORM_ref8:
      ok = fixedValue<uint64_t>(p, v);
      break;
    case DW_FORM_ref_udata:
      ok = uleb(p, end_, v);
      break;
    case DW_FORM_ref_addr:
      ok = ref_addr_size_ == 8 ? fixedValue<uint64_t>(p, v) : fixedValue<uint32_t>(p, v);
      return ok ? v : 0;
    default:
      return 0;
  }
  const uint64_t unit_offset = unitOffset();
  return ok && v <= UINT64_MAX - unit_offset ? unit_offset + v : 0;
}

const Abbrev* UnitReader::abbrevSlow(const uint8_t*& p) {
  const uint8_t* at = p;
  uint64_t code = 0;
  if (!uleb(p, end_, code)) {
    p = at;
    failed_ = true;
    return nullptr;
  }
  if (code == 0) return nullptr;
  if (code >= kMaxCode) {
    failed_ = true;
    return nullptr;
  }
  if (code >= abbrevs_.size()) abbrevs_.resize(code + 1);
  Abbrev& a = abbrevs_[code];
  if (!a.known && !learn(at, a)) {
    failed_ = true;
    return nullptr;
  }
  return &a;
}

// Learns an abbreviation from a DIE that uses it, through libdw: its tag,
// children flag, and attributes in order (dwarf_getattrs). Each value must
// start where the forms before it end, which also refuses a
// DW_FORM_indirect (libdw reports the form it names).
bool UnitReader::learn(const uint8_t* die_at, Abbrev& a) {
  Dwarf_Die d{};
  d.addr = const_cast<uint8_t*>(die_at);
  d.cu = cu_;
  int tag = ::dwarf_tag(&d);
  if (tag < 0) return false;
  a.tag = tag;
  a.children = ::dwarf_haschildren(&d) > 0;
  a.attrs.clear();
  a.sibling = -1;
  struct Learning {
    const UnitReader* self;
    Abbrev* a;
    const uint8_t* at;  // where the next value should start
    bool ok = true;
  } l{this, &a, die_at};
  uint64_t code = 0;
  if (!uleb(l.at, end_, code)) return false;
  auto collect = [](Dwarf_Attribute* attr, void* arg) -> int {
    auto* l = static_cast<Learning*>(arg);
    Abbrev::Attr at{attr->code, attr->form, 0};
    if (at.form == DW_FORM_implicit_const) {
      Dwarf_Sword v = 0;
      if (::dwarf_formsdata(attr, &v) != 0) l->ok = false;
      at.implicit = v;
    } else if (attr->valp != l->at || !l->self->skipForm(at.form, l->at)) {
      l->ok = false;
    }
    if (!l->ok) return DWARF_CB_ABORT;
    if (at.name == DW_AT_sibling && l->a->sibling < 0 && l->a->attrs.size() < 127)
      l->a->sibling = static_cast<int8_t>(l->a->attrs.size());
    l->a->attrs.push_back(at);
    return DWARF_CB_OK;
  };
  if (::dwarf_getattrs(&d, collect, &l, 0) != 1 || !l.ok) return false;
  int fixed = 0;
  for (Abbrev::Attr& at : a.attrs) {
    int size = formSize(at.form);
    at.size = size == kVariableSize ? -1 : size;
    fixed = size == kVariableSize || fixed == kVariableSize ? kVariableSize : fixed + size;
  }
  a.fixed = fixed >= kVariableSize ? kVariableSize : static_cast<uint16_t>(fixed);
  a.known = true;
  return true;
}

const uint8_t* UnitReader::siblingOf(const Abbrev& a, const uint8_t* p,
                                     const uint8_t* after) const {
  if (a.sibling < 0) return nullptr;
  for (int i = 0; i < a.sibling; ++i) {
    if (!skipForm(a.attrs[i].form, p)) return nullptr;
  }
  const uint64_t target = reference(a.attrs[a.sibling].form, p);
  const uint64_t unit_offset = unitOffset();
  if (target < unit_offset || target - unit_offset > static_cast<uint64_t>(end_ - unit_start_)) {
    return nullptr;
  }
  const uint8_t* to = unit_start_ + (target - unit_offset);
  return to > after ? to : nullptr;
}

bool UnitReader::skipChildren(const uint8_t*& p) {
  int depth = 1;
  while (depth > 0) {
    if (p >= end_) return false;
    const uint8_t* values = p;
    const Abbrev* a = abbrev(values);
    if (a == nullptr) {
      if (failed_) return false;
      p = values;
      --depth;
      continue;
    }
    const uint8_t* q = values;
    if (!skipValues(*a, q)) return false;
    if (a->children) {
      if (const uint8_t* to = siblingOf(*a, values, q)) {
        q = to;
      } else {
        ++depth;
      }
    }
    p = q;
  }
  return true;
}

}  // namespace strobe::symbolize
