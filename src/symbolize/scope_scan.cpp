#include "symbolize/scope_scan.hpp"

#include "symbolize/die_reader.hpp"

#include <dwarf.h>

#include <cstring>
#include <optional>
#include <span>
#include <utility>

namespace strobe::symbolize {

void ScopeSink::begin(uint64_t die, int32_t parent, bool inlined, uint64_t call_file,
                      uint64_t call_line, uint64_t names_from) {
  pending_ = Scope{};
  pending_.die = die;
  pending_.names_from = names_from;
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

// The ranges and call site of a function DIE, and what says where its
// names come from: the DIE's own name and declaration attributes, else its
// abstract origin or specification (see Scope::names_from).
enum ScopeSlot {
  kLowPc,
  kHighPc,
  kRanges,
  kCallFile,
  kCallLine,
  kOrigin,
  kSpecification,
  kName,  // kName and after: the DIE names itself
  kLinkageName,
  kMipsLinkageName,
  kDeclFile,
  kDeclLine,
  kSlots
};
using ScopeAttrs =
    DieAttrs<DW_AT_low_pc, DW_AT_high_pc, DW_AT_ranges, DW_AT_call_file, DW_AT_call_line,
             DW_AT_abstract_origin, DW_AT_specification, DW_AT_name, DW_AT_linkage_name,
             DW_AT_MIPS_linkage_name, DW_AT_decl_file, DW_AT_decl_line>;

// The reference a function DIE takes all its names from (as
// function_namer's chain reads it: the origin before the specification),
// or nullptr when the DIE has a name or declaration attribute itself.
Dwarf_Attribute* namesFrom(ScopeAttrs& at) {
  for (int i = kName; i < kSlots; ++i) {
    if (at.has[i]) return nullptr;
  }
  return at.has[kOrigin] ? &at.attr[kOrigin] : at.get(kSpecification);
}

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
      uint64_t names_from = 0;
      Dwarf_Die target;
      if (Dwarf_Attribute* ref = namesFrom(at); ref != nullptr && ::dwarf_formref_die(ref, &target))
        names_from = ::dwarf_dieoffset(&target);
      sink.begin(::dwarf_dieoffset(&child), parent_scope, tag == DW_TAG_inlined_subroutine,
                 at.udata(kCallFile), at.udata(kCallLine), names_from);
      addRanges(&child, at.get(kLowPc), at.get(kHighPc), sink);
      int32_t scope = sink.end();
      // Without code nothing below has any.
      if (scope >= 0 && ::dwarf_haschildren(&child) > 0) walk(&child, scope, depth + 1, sink);
    } else if (isContainer(tag) && ::dwarf_haschildren(&child) > 0) {
      walk(&child, parent_scope, depth + 1, sink);
    }
  } while (::dwarf_siblingof(&child, &child) == 0);
}

// ---- strobe's scan ------------------------------------------------------

class Scanner {
 public:
  Scanner(Dwarf_Die* cudie, const DebugSections& sections, ScopeSink& sink)
      : cudie_(*cudie), sections_(sections), sink_(sink) {}

  bool run() {
    if (!reader_.open(cudie_.cu)) return false;
    Dwarf_Addr base = 0;
    has_base_address_ = ::dwarf_lowpc(&cudie_, &base) == 0;
    base_address_ = base;
    // The unit DIE itself, then its children.
    const uint8_t* p = reader_.unitDie();
    const Abbrev* a = reader_.abbrev(p);
    if (a == nullptr || !reader_.skipValues(*a, p)) return false;
    return !a->children || children(p, -1, 0);
  }

 private:
  // Reads the children of a DIE (p: just past its values) up to and past
  // their null entry.
  bool children(const uint8_t*& p, int32_t parent_scope, int depth) {
    if (depth > kMaxDieDepth) return reader_.skipChildren(p);
    while (true) {
      if (p >= reader_.end()) return false;
      const uint8_t* die_at = p;
      const Abbrev* a = reader_.abbrev(p);
      if (a == nullptr) return !reader_.failed();  // the null entry ends the siblings
      const uint8_t* values = p;
      int32_t scope = parent_scope;
      bool enter = false;
      if (isFunction(a->tag)) {
        std::optional<int32_t> s = function(*a, die_at, p, parent_scope);
        if (!s) return false;
        scope = *s;
        enter = scope >= 0;  // without code nothing below has any
      } else {
        if (!reader_.skipValues(*a, p)) return false;
        enter = isContainer(a->tag);
      }
      if (!a->children) continue;
      if (enter) {
        if (!children(p, scope, depth + 1)) return false;
      } else if (const uint8_t* to = reader_.siblingOf(*a, values, p)) {
        p = to;
      } else if (!reader_.skipChildren(p)) {
        return false;
      }
    }
  }

  // Reads a function DIE's values (p: past its code, advanced past them)
  // into the sink: its scope, -1 when it has no code, nullopt on error.
  std::optional<int32_t> function(const Abbrev& a, const uint8_t* die_at, const uint8_t*& p,
                                  int32_t parent_scope) {
    ScopeAttrs at;
    if (!at.read(reader_, a, p)) return std::nullopt;
    // Declarations and abstract instances have neither low_pc nor ranges.
    if (!at.has[kLowPc] && !at.has[kRanges]) return -1;
    const Dwarf_Attribute* ref = namesFrom(at);
    sink_.begin(
        reader_.offsetOf(die_at), parent_scope, a.tag == DW_TAG_inlined_subroutine,
        at.udata(kCallFile), at.udata(kCallLine),
        ref != nullptr ? reader_.reference(ref->form, static_cast<const uint8_t*>(ref->valp)) : 0);
    if (!(at.has[kLowPc] && at.has[kHighPc]) && at.has[kRanges] && listRanges(at.attr[kRanges])) {
      return sink_.end();
    }
    if (std::optional<std::pair<uint64_t, uint64_t>> pc = bytesLowHigh(at)) {
      sink_.range(pc->first, pc->second);
      return sink_.end();
    }
    Dwarf_Die d{};
    d.addr = const_cast<uint8_t*>(die_at);
    d.cu = cudie_.cu;
    addRanges(&d, at.get(kLowPc), at.get(kHighPc), sink_);
    return sink_.end();
  }

  // lowHigh() above for the usual forms, from the values' bytes: low_pc an
  // address, high_pc an address or a length. nullopt for other forms
  // (DW_FORM_addrx, ...), which libdw reads.
  std::optional<std::pair<uint64_t, uint64_t>> bytesLowHigh(const ScopeAttrs& at) const {
    if (!at.has[kLowPc] || !at.has[kHighPc] || at.attr[kLowPc].form != DW_FORM_addr) {
      return std::nullopt;
    }
    auto address = [&](const unsigned char* v) {
      uint64_t a = 0;
      std::memcpy(&a, v, static_cast<size_t>(reader_.addressSize()));  // little-endian
      return a;
    };
    const uint64_t lo = address(at.attr[kLowPc].valp);
    switch (at.attr[kHighPc].form) {
      case DW_FORM_addr:
        return std::make_pair(lo, address(at.attr[kHighPc].valp));
      case DW_FORM_data1:
      case DW_FORM_data2:
      case DW_FORM_data4:
      case DW_FORM_data8:
      case DW_FORM_udata:
        return std::make_pair(lo, lo + at.udata(kHighPc));
      default:
        return std::nullopt;
    }
  }

  // A DW_AT_ranges list read from the sections into the sink, as
  // dwarf_ranges gives it; false, with the sink untouched, for what this
  // leaves to libdw: index forms (DW_FORM_rnglistx, DW_RLE_*x entries), a
  // unit without DW_AT_low_pc (libdw's rules for its base address), an
  // offset outside the section.
  bool listRanges(const Dwarf_Attribute& attr) {
    if (!has_base_address_ || attr.form != DW_FORM_sec_offset) return false;
    uint64_t off = 0;
    if (attr.valp + reader_.offsetSize() > reader_.end()) return false;
    std::memcpy(&off, attr.valp, static_cast<size_t>(reader_.offsetSize()));  // little-endian
    std::span<const uint8_t> sec = reader_.version() >= 5 ? sections_.rnglists : sections_.ranges;
    if (off >= sec.size()) return false;
    const uint8_t* p = sec.data() + off;
    const uint8_t* end = sec.data() + sec.size();
    auto addr = [&](uint64_t& out) {
      if (end - p < reader_.addressSize()) return false;
      out = 0;
      std::memcpy(&out, p, static_cast<size_t>(reader_.addressSize()));
      p += reader_.addressSize();
      return true;
    };
    list_.clear();
    uint64_t base = base_address_;
    if (reader_.version() < 5) {
      const uint64_t selection = reader_.addressSize() == 4 ? UINT32_MAX : UINT64_MAX;
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
            if (!UnitReader::uleb(p, end, lo) || !UnitReader::uleb(p, end, hi)) return false;
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
            if (!addr(lo) || !UnitReader::uleb(p, end, hi)) return false;
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
  UnitReader reader_;
  std::vector<std::pair<uint64_t, uint64_t>> list_;  // reused by listRanges
  bool has_base_address_ = false;
  uint64_t base_address_ = 0;  // the unit's DW_AT_low_pc: range lists count from it
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
