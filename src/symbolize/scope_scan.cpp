#include "symbolize/scope_scan.hpp"

#include "symbolize/die_attrs.hpp"

#include <dwarf.h>
#include <elf.h>
#include <gelf.h>

#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <utility>

namespace strobe::symbolize {

void ScopeSink::begin(uint64_t die, int32_t parent, bool inlined, uint64_t call_file,
                      uint64_t call_line) {
  pending_ = Scope{};
  pending_.die = die;
  pending_.parent = parent;
  pending_.inlined = inlined;
  if (inlined) {
    if (call_file < out_.file_count) pending_.call_file = static_cast<uint32_t>(call_file);
    pending_.call_line = static_cast<uint32_t>(call_line);
  }
  has_lo_ = false;
  scope_ = -1;
}

void ScopeSink::range(uint64_t lo, uint64_t hi) {
  if (!has_lo_) {
    first_lo_ = lo;
    has_lo_ = true;
  }
  if (lo >= hi) return;
  if (scope_ < 0) {
    scope_ = static_cast<int32_t>(out_.scopes.size());
    pending_.id = static_cast<uint32_t>(scope_);
    out_.scopes.push_back(pending_);
    out_.low_pcs.push_back(first_lo_);
  }
  out_.ranges.push_back(CodeRange{lo, hi, scope_});
}

void ScopeSink::reset() {
  out_.clear();
  scope_ = -1;
}

namespace {

bool isFunction(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// DIEs that hold no code themselves but may hold functions.
bool isContainer(int tag) {
  return tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
         tag == DW_TAG_namespace || tag == DW_TAG_module;
}

// ---- libdw's walk -------------------------------------------------------

enum ScopeSlot { kLowPc, kHighPc, kRanges, kCallFile, kCallLine };
using ScopeAttrs =
    DieAttrs<DW_AT_low_pc, DW_AT_high_pc, DW_AT_ranges, DW_AT_call_file, DW_AT_call_line>;

// [low_pc, high_pc) as dwarf_lowpc / dwarf_highpc read them (high_pc an
// address or an offset from low_pc); nullopt in every other case, which
// dwarf_ranges then handles (DW_AT_ranges, unusual forms, errors).
std::optional<std::pair<uint64_t, uint64_t>> lowHigh(Dwarf_Attribute* low, Dwarf_Attribute* high) {
  if (low == nullptr || high == nullptr) return std::nullopt;
  Dwarf_Addr lo = 0;
  if (::dwarf_formaddr(low, &lo) != 0) return std::nullopt;
  switch (::dwarf_whatform(high)) {
    case DW_FORM_addr: {
      Dwarf_Addr hi = 0;
      if (::dwarf_formaddr(high, &hi) != 0) return std::nullopt;
      return std::make_pair(lo, hi);
    }
    case DW_FORM_data1:
    case DW_FORM_data2:
    case DW_FORM_data4:
    case DW_FORM_data8:
    case DW_FORM_udata: {
      Dwarf_Word len = 0;
      if (::dwarf_formudata(high, &len) != 0) return std::nullopt;
      return std::make_pair(lo, lo + len);
    }
    default:
      return std::nullopt;
  }
}

// The ranges of a function DIE: low/high_pc, else whatever dwarf_ranges
// reads (DW_AT_ranges in .debug_ranges or .debug_rnglists).
void addRanges(Dwarf_Die* die, Dwarf_Attribute* low, Dwarf_Attribute* high, ScopeSink& sink) {
  if (std::optional<std::pair<uint64_t, uint64_t>> pc = lowHigh(low, high)) {
    sink.range(pc->first, pc->second);  // what dwarf_ranges gives for low/high_pc
    return;
  }
  Dwarf_Addr base = 0;
  Dwarf_Addr lo = 0;
  Dwarf_Addr hi = 0;
  ptrdiff_t off = 0;
  while ((off = ::dwarf_ranges(die, off, &base, &lo, &hi)) > 0) sink.range(lo, hi);
}

uint64_t udata(Dwarf_Attribute* a) {
  Dwarf_Word v = 0;
  return a != nullptr && ::dwarf_formudata(a, &v) == 0 ? v : 0;
}

void walk(Dwarf_Die* parent, int32_t parent_scope, int depth, ScopeSink& sink) {
  if (depth > kMaxDieDepth) return;
  Dwarf_Die child;
  if (::dwarf_child(parent, &child) != 0) return;
  do {
    int tag = ::dwarf_tag(&child);
    if (isFunction(tag)) {
      // Declarations and abstract instances have neither low_pc nor ranges.
      ScopeAttrs at;
      if (!at.read(&child) || (!at.has[kLowPc] && !at.has[kRanges])) continue;
      auto slot = [&](int i) { return at.has[i] ? &at.attr[i] : nullptr; };
      sink.begin(::dwarf_dieoffset(&child), parent_scope, tag == DW_TAG_inlined_subroutine,
                 udata(slot(kCallFile)), udata(slot(kCallLine)));
      addRanges(&child, slot(kLowPc), slot(kHighPc), sink);
      int32_t scope = sink.end();
      // Without code nothing below has any.
      if (scope >= 0 && ::dwarf_haschildren(&child) > 0) walk(&child, scope, depth + 1, sink);
    } else if (isContainer(tag) && ::dwarf_haschildren(&child) > 0) {
      walk(&child, parent_scope, depth + 1, sink);
    }
  } while (::dwarf_siblingof(&child, &child) == 0);
}

// ---- strobe's scan ------------------------------------------------------

constexpr uint16_t kVariable = UINT16_MAX;  // an abbreviation's size depends on its values
constexpr uint32_t kMaxCode = 1u << 16;     // larger codes: left to libdw

// What the scan needs of one abbreviation.
struct Abbrev {
  bool known = false;
  bool children = false;
  int tag = 0;
  uint16_t fixed = kVariable;  // byte size of all attributes when every form has a fixed size
  bool wanted = false;         // a function or container: its attributes are read
  int8_t sibling = -1;         // index of DW_AT_sibling in attrs
  struct Attr {
    unsigned name;
    unsigned form;
    int64_t implicit;  // DW_FORM_implicit_const's value
  };
  std::vector<Attr> attrs;
};

class Scanner {
 public:
  Scanner(Dwarf_Die* cudie, const DebugSections& sections, ScopeSink& sink)
      : cudie_(*cudie), sections_(sections), sink_(sink) {}

  bool run() {
    Dwarf_Half version = 0;
    Dwarf_Off abbrev_offset = 0;
    uint8_t address_size = 0;
    uint8_t offset_size = 0;
    Dwarf_Die die;
    if (::dwarf_cu_die(cudie_.cu, &die, &version, &abbrev_offset, &address_size, &offset_size,
                       nullptr, nullptr) == nullptr) {
      return false;
    }
    if (address_size != 4 && address_size != 8) return false;
    if (offset_size != 4 && offset_size != 8) return false;
    address_size_ = address_size;
    offset_size_ = offset_size;
    ref_addr_size_ = version < 3 ? address_size : offset_size;
    version_ = version;
    Dwarf_Addr base = 0;
    has_base_address_ = ::dwarf_lowpc(&cudie_, &base) == 0;
    base_address_ = base;
    // The unit's bytes: from its header to the next unit.
    Dwarf* dwarf = ::dwarf_cu_getdwarf(cudie_.cu);
    if (dwarf == nullptr) return false;
    Elf* elf = ::dwarf_getelf(dwarf);
    if (elf == nullptr) return false;
    const char* ident = ::elf_getident(elf, nullptr);
    if (ident == nullptr || ident[EI_DATA] != ELFDATA2LSB ||
        std::endian::native != std::endian::little)
      return false;
    const Dwarf_Off die_off = ::dwarf_dieoffset(&cudie_);
    const Dwarf_Off in_unit = ::dwarf_cuoffset(&cudie_);
    if (in_unit > die_off) return false;
    Dwarf_Off next = 0;
    if (::dwarf_next_unit(dwarf, die_off - in_unit, &next, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr) != 0 ||
        next <= die_off) {
      return false;
    }
    cu_base_ = die_off;
    first_ = static_cast<const uint8_t*>(cudie_.addr);
    unit_start_ = first_ - in_unit;
    end_ = first_ + (next - die_off);
    // The unit DIE itself, then its children.
    const uint8_t* p = first_;
    const Abbrev* a = abbrev(p);
    if (a == nullptr || !skipAttrs(*a, p)) return false;
    if (a->children && !children(p, -1, 0)) return false;
    return true;
  }

 private:
  static bool uleb(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
    out = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
      uint8_t byte = *p++;
      if (shift < 64) out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  static bool skipLeb(const uint8_t*& p, const uint8_t* end) {
    while (p < end) {
      if ((*p++ & 0x80) == 0) return true;
    }
    return false;
  }
  template <typename T>
  bool fixedValue(const uint8_t*& p, uint64_t& out) const {
    if (static_cast<size_t>(end_ - p) < sizeof(T)) return false;
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    out = v;
    return true;
  }

  // The byte size of a form with a fixed size, 0 for none, kVariable when
  // its size comes with its value, -1 (as int) for a form not known.
  int formSize(unsigned form) const {
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
        return kVariable;
      default:
        return -1;
    }
  }

  // Steps over one value of `form`; false when it does not fit or the form
  // is not known.
  bool skipForm(unsigned form, const uint8_t*& p, int depth = 0) const {
    int size = formSize(form);
    if (size < 0) return false;
    if (size != kVariable) {
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

  // The abbreviation of the DIE at `p`, advancing past its code; nullptr
  // for a null entry (code 0, p advanced) or on error (p not advanced).
  const Abbrev* abbrev(const uint8_t*& p) {
    const uint8_t* at = p;
    uint64_t code = 0;
    if (!uleb(p, end_, code)) {
      p = at;
      error_ = true;
      return nullptr;
    }
    if (code == 0) return nullptr;
    if (code >= kMaxCode) {
      error_ = true;
      return nullptr;
    }
    if (code >= abbrevs_.size()) abbrevs_.resize(code + 1);
    Abbrev& a = abbrevs_[code];
    if (!a.known && !learn(at, a)) {
      error_ = true;
      return nullptr;
    }
    return &a;
  }

  // Learns an abbreviation from a DIE that uses it, through libdw: its tag,
  // children flag, and attributes in order (dwarf_getattrs). Each value
  // must start where the forms before it end, which also refuses a
  // DW_FORM_indirect (libdw reports the form it names).
  bool learn(const uint8_t* die_at, Abbrev& a) {
    Dwarf_Die d{};
    d.addr = const_cast<uint8_t*>(die_at);
    d.cu = cudie_.cu;
    int tag = ::dwarf_tag(&d);
    if (tag < 0) return false;
    a.tag = tag;
    a.children = ::dwarf_haschildren(&d) > 0;
    a.wanted = isFunction(tag) || isContainer(tag);
    a.attrs.clear();
    struct Learning {
      const Scanner* self;
      Abbrev* a;
      const uint8_t* at;  // where the next value should start
      bool ok = true;
    } l{this, &a, nullptr};
    {
      const uint8_t* p = die_at;
      uint64_t code = 0;
      if (!uleb(p, end_, code)) return false;
      l.at = p;
    }
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
    for (const Abbrev::Attr& at : a.attrs) {
      int size = formSize(at.form);
      fixed = size == kVariable || fixed == kVariable ? kVariable : fixed + size;
    }
    a.fixed = fixed >= kVariable ? kVariable : static_cast<uint16_t>(fixed);
    a.known = true;
    return true;
  }

  bool skipAttrs(const Abbrev& a, const uint8_t*& p) const {
    if (a.fixed != kVariable) {
      if (end_ - p < a.fixed) return false;
      p += a.fixed;
      return true;
    }
    for (const Abbrev::Attr& at : a.attrs) {
      if (!skipForm(at.form, p)) return false;
    }
    return true;
  }

  // Where DW_AT_sibling of the DIE whose attributes start at `p` points, or
  // nullptr (absent, or not ahead of the attributes' end `after`).
  const uint8_t* siblingOf(const Abbrev& a, const uint8_t* p, const uint8_t* after) const {
    if (a.sibling < 0) return nullptr;
    for (int i = 0; i < a.sibling; ++i) {
      if (!skipForm(a.attrs[i].form, p)) return nullptr;
    }
    uint64_t off = 0;
    switch (a.attrs[a.sibling].form) {
      case DW_FORM_ref1:
        if (!fixedValue<uint8_t>(p, off)) return nullptr;
        break;
      case DW_FORM_ref2:
        if (!fixedValue<uint16_t>(p, off)) return nullptr;
        break;
      case DW_FORM_ref4:
        if (!fixedValue<uint32_t>(p, off)) return nullptr;
        break;
      case DW_FORM_ref8:
        if (!fixedValue<uint64_t>(p, off)) return nullptr;
        break;
      case DW_FORM_ref_udata:
        if (!uleb(p, end_, off)) return nullptr;
        break;
      default:
        return nullptr;
    }
    if (off > static_cast<uint64_t>(end_ - unit_start_)) return nullptr;
    const uint8_t* to = unit_start_ + off;
    return to > after ? to : nullptr;
  }

  // Steps over the children of a DIE (p: just past its attributes), down
  // to and past their null entry.
  bool skipChildren(const uint8_t*& p) {
    int depth = 1;
    while (depth > 0) {
      if (p >= end_) return false;
      const uint8_t* attrs_at = p;
      const Abbrev* a = abbrev(attrs_at);
      if (a == nullptr) {
        if (error_) return false;
        p = attrs_at;
        --depth;
        continue;
      }
      const uint8_t* q = attrs_at;
      if (!skipAttrs(*a, q)) return false;
      if (a->children) {
        if (const uint8_t* to = siblingOf(*a, attrs_at, q)) {
          q = to;
        } else {
          ++depth;
        }
      }
      p = q;
    }
    return true;
  }

  // Reads the children of a DIE (p: just past its attributes) up to and
  // past their null entry.
  bool children(const uint8_t*& p, int32_t parent_scope, int depth) {
    if (depth > kMaxDieDepth) return skipChildren(p);
    while (true) {
      if (p >= end_) return false;
      const uint8_t* die_at = p;
      const Abbrev* a = abbrev(p);
      if (a == nullptr) {
        if (error_) return false;
        return true;  // the null entry ends the siblings
      }
      const uint8_t* attrs_at = p;
      if (!a->wanted) {
        if (!skipAttrs(*a, p)) return false;
        if (a->children) {
          if (const uint8_t* to = siblingOf(*a, attrs_at, p)) {
            p = to;
          } else if (!skipChildren(p)) {
            return false;
          }
        }
        continue;
      }
      int32_t scope = parent_scope;
      bool enter = true;
      if (isFunction(a->tag)) {
        std::optional<int32_t> s = function(*a, die_at, p, parent_scope);
        if (!s) return false;
        scope = *s;
        enter = scope >= 0;  // without code nothing below has any
      } else if (!skipAttrs(*a, p)) {
        return false;
      }
      if (!a->children) continue;
      if (enter) {
        if (!children(p, scope, depth + 1)) return false;
      } else if (const uint8_t* to = siblingOf(*a, attrs_at, p)) {
        p = to;
      } else if (!skipChildren(p)) {
        return false;
      }
    }
  }

  // Reads a function DIE's attributes (p: past its code, advanced past
  // them) into the sink: its scope, -1 when it has no code, nullopt on error.
  std::optional<int32_t> function(const Abbrev& a, const uint8_t* die_at, const uint8_t*& p,
                                  int32_t parent_scope) {
    // The first of each wanted attribute, as dwarf_attr finds it.
    std::array<std::optional<Dwarf_Attribute>, 5> slot;
    std::array<int64_t, 5> implicit{};
    for (const Abbrev::Attr& at : a.attrs) {
      int i = at.name == DW_AT_low_pc      ? kLowPc
              : at.name == DW_AT_high_pc   ? kHighPc
              : at.name == DW_AT_ranges    ? kRanges
              : at.name == DW_AT_call_file ? kCallFile
              : at.name == DW_AT_call_line ? kCallLine
                                           : -1;
      if (i >= 0 && !slot[i]) {
        slot[i] = Dwarf_Attribute{at.name, at.form, const_cast<uint8_t*>(p), cudie_.cu};
        implicit[i] = at.implicit;
      }
      if (!skipForm(at.form, p)) return std::nullopt;
    }
    // Declarations and abstract instances have neither low_pc nor ranges.
    if (!slot[kLowPc] && !slot[kRanges]) return -1;
    auto value = [&](int i) -> uint64_t {
      if (!slot[i]) return 0;
      if (slot[i]->form == DW_FORM_implicit_const) return static_cast<uint64_t>(implicit[i]);
      return udata(&*slot[i]);
    };
    sink_.begin(cu_base_ + static_cast<uint64_t>(die_at - first_), parent_scope,
                a.tag == DW_TAG_inlined_subroutine, value(kCallFile), value(kCallLine));
    if (!(slot[kLowPc] && slot[kHighPc]) && slot[kRanges] && listRanges(*slot[kRanges])) {
      return sink_.end();
    }
    Dwarf_Die d{};
    d.addr = const_cast<uint8_t*>(die_at);
    d.cu = cudie_.cu;
    addRanges(&d, slot[kLowPc] ? &*slot[kLowPc] : nullptr,
              slot[kHighPc] ? &*slot[kHighPc] : nullptr, sink_);
    return sink_.end();
  }

  // A DW_AT_ranges list read from the sections into the sink, as
  // dwarf_ranges gives it; false, with the sink untouched, for what this
  // leaves to libdw: index forms (DW_FORM_rnglistx, DW_RLE_*x entries), a
  // unit without DW_AT_low_pc (libdw's rules for its base address), an
  // offset outside the section.
  bool listRanges(const Dwarf_Attribute& attr) {
    if (!has_base_address_ || attr.form != DW_FORM_sec_offset) return false;
    const uint8_t* v = attr.valp;
    uint64_t off = 0;
    if (offset_size_ == 4 ? !fixedValue<uint32_t>(v, off) : !fixedValue<uint64_t>(v, off)) {
      return false;
    }
    std::span<const uint8_t> sec = version_ >= 5 ? sections_.rnglists : sections_.ranges;
    if (off >= sec.size()) return false;
    const uint8_t* p = sec.data() + off;
    const uint8_t* end = sec.data() + sec.size();
    auto addr = [&](uint64_t& out) {
      if (end - p < address_size_) return false;
      out = 0;
      std::memcpy(&out, p, static_cast<size_t>(address_size_));
      p += address_size_;
      return true;
    };
    list_.clear();
    uint64_t base = base_address_;
    if (version_ < 5) {
      const uint64_t selection = address_size_ == 4 ? UINT32_MAX : UINT64_MAX;
      while (true) {
        uint64_t lo = 0;
        uint64_t hi = 0;
        if (!addr(lo) || !addr(hi)) return false;
        if (lo == 0 && hi == 0) break;
        if (lo == selection) {
          base = hi;
          continue;
        }
        list_.emplace_back(base + lo, base + hi);
      }
    } else {
      while (true) {
        if (p >= end) return false;
        uint8_t kind = *p++;
        uint64_t lo = 0;
        uint64_t hi = 0;
        if (kind == DW_RLE_end_of_list) break;
        switch (kind) {
          case DW_RLE_offset_pair:
            if (!uleb(p, end, lo) || !uleb(p, end, hi)) return false;
            list_.emplace_back(base + lo, base + hi);
            break;
          case DW_RLE_base_address:
            if (!addr(base)) return false;
            break;
          case DW_RLE_start_end:
            if (!addr(lo) || !addr(hi)) return false;
            list_.emplace_back(lo, hi);
            break;
          case DW_RLE_start_length:
            if (!addr(lo) || !uleb(p, end, hi)) return false;
            list_.emplace_back(lo, lo + hi);
            break;
          default:
            return false;
        }
      }
    }
    for (const auto& [lo, hi] : list_) sink_.range(lo, hi);
    return true;
  }

  Dwarf_Die cudie_;
  const DebugSections& sections_;
  ScopeSink& sink_;
  std::vector<std::pair<uint64_t, uint64_t>> list_;  // reused by listRanges
  unsigned version_ = 0;
  bool has_base_address_ = false;
  uint64_t base_address_ = 0;  // the unit's DW_AT_low_pc: range lists count from it
  std::vector<Abbrev> abbrevs_;
  int address_size_ = 8;
  int offset_size_ = 4;
  int ref_addr_size_ = 4;
  uint64_t cu_base_ = 0;  // the unit DIE's offset in .debug_info
  const uint8_t* unit_start_ = nullptr;
  const uint8_t* first_ = nullptr;  // the unit DIE
  const uint8_t* end_ = nullptr;
  bool error_ = false;
};

}  // namespace

bool scanScopes(Dwarf_Die* cudie, const DebugSections& sections, ScopeSink& sink) {
  Scanner scanner(cudie, sections, sink);
  if (scanner.run()) return true;
  sink.reset();
  return false;
}

void walkScopes(Dwarf_Die* cudie, ScopeSink& sink) {
  walk(cudie, -1, 0, sink);
}

}  // namespace strobe::symbolize
