#include "symbolize/dwarf_index.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {
namespace {

constexpr int kMaxDepth = 64;  // deeper DIE nesting than any real program: hostile input
constexpr uint32_t kNoFile = UINT32_MAX;

// A line-table row and the addresses it covers, [lo, hi).
struct LineRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  uint32_t line = 0;
  uint32_t file = kNoFile;  // index into Unit::files
  uint32_t discriminator = 0;
};

// One row of a unit's line program, in program order `order`.
struct LineRow {
  uint64_t addr;
  uint32_t order;
  uint32_t line;
  uint32_t file;
  uint32_t discriminator;
  bool end;
};

// A subprogram or inlined subroutine with code.
struct Scope {
  uint64_t die = 0;
  uint32_t id = kNoFunction;  // dense function id
  int32_t parent = -1;        // the enclosing function scope, -1 at the top
  uint32_t call_file = kNoFile;
  uint32_t call_line = 0;
  bool inlined = false;
};

// [lo, next segment's lo) belongs to `scope` (-1: to no function).
struct Segment {
  uint64_t lo = 0;
  int32_t scope = -1;
};

struct Unit {
  std::vector<std::string_view> files;
  std::vector<LineRange> lines;  // sorted by lo, non-overlapping
  std::vector<Scope> scopes;
  std::vector<Segment> segments;  // sorted by lo
};

struct UnitRange {
  uint64_t low = 0;
  uint64_t high = 0;  // exclusive
  Dwarf_Off die = 0;
};

const char* attrString(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  return ::dwarf_formstring(::dwarf_attr_integrate(die, name, &attr));
}

// Languages whose names binutils does not demangle (its mangle_style() == 0).
bool unmangledLanguage(int lang) {
  switch (lang) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_C99:
    case DW_LANG_C11:
    case DW_LANG_Cobol74:
    case DW_LANG_Cobol85:
    case DW_LANG_Fortran77:
    case DW_LANG_Fortran90:
    case DW_LANG_Fortran95:
    case DW_LANG_Fortran03:
    case DW_LANG_Fortran08:
    case DW_LANG_Pascal83:
    case DW_LANG_Modula2:
    case DW_LANG_PLI:
    case DW_LANG_UPC:
    case DW_LANG_Mips_Assembler:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct DwarfIndex::Impl {
  Dwarf* dwarf = nullptr;
  bool unit_ranges_built = false;
  std::vector<UnitRange> unit_ranges;  // sorted by low
  std::unordered_map<Dwarf_Off, std::unique_ptr<Unit>> units;
  Dwarf_Off last_unit_offset = 0;
  Unit* last_unit = nullptr;
  std::deque<FunctionInfo> functions;   // by dense id
  std::vector<uint64_t> function_dies;  // by dense id
  std::vector<bool> resolved;           // by dense id
  std::unordered_set<std::string> strings;
  // Scratch reused across units: a fresh large vector per unit costs page
  // faults (malloc maps and unmaps it) more than the rows cost to write.
  std::vector<LineRow> row_scratch;

  ~Impl() {
    if (dwarf != nullptr) ::dwarf_end(dwarf);
  }

  std::string_view intern(std::string s) { return *strings.insert(std::move(s)).first; }

  static std::string absolute(Dwarf_Die* cu, const char* file) {
    if (file == nullptr) return {};
    std::string path(file);
    if (path.empty() || path.front() == '/') return path;
    const char* dir = attrString(cu, DW_AT_comp_dir);
    if (dir == nullptr || *dir == '\0') return path;
    std::string joined(dir);
    if (joined.back() != '/') joined.push_back('/');
    return joined + path;
  }

  void buildUnitRanges() {
    unit_ranges_built = true;
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Die cudie;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    while (::dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &cudie, nullptr) == 0) {
      cu = next;
      if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
      Dwarf_Addr base = 0;
      Dwarf_Addr low = 0;
      Dwarf_Addr high = 0;
      ptrdiff_t off = 0;
      while ((off = ::dwarf_ranges(&cudie, off, &base, &low, &high)) > 0) {
        if (low < high) unit_ranges.push_back(UnitRange{low, high, ::dwarf_dieoffset(&cudie)});
      }
    }
    std::sort(unit_ranges.begin(), unit_ranges.end(),
              [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
  }

  // The unit covering pc: the units' own ranges first, then .debug_aranges.
  // The hot path touches no libdw: ranges carry the unit's slot.
  Unit* unitFor(uint64_t pc) {
    if (dwarf == nullptr) return nullptr;
    if (!unit_ranges_built) buildUnitRanges();
    auto it = std::upper_bound(unit_ranges.begin(), unit_ranges.end(), pc,
                               [](uint64_t a, const UnitRange& r) { return a < r.low; });
    // Unit ranges rarely overlap; look a few ranges back, never scan them all.
    for (int steps = 0; it != unit_ranges.begin() && steps < 8; ++steps) {
      --it;
      if (pc < it->high) return unitAt(it->die);
    }
    Dwarf_Die cudie;
    if (::dwarf_addrdie(dwarf, pc, &cudie) == nullptr) return nullptr;
    return unitAt(::dwarf_dieoffset(&cudie));
  }

  Unit* unitAt(Dwarf_Off cu_offset) {
    if (cu_offset == last_unit_offset && last_unit != nullptr) return last_unit;
    auto [slot, inserted] = units.try_emplace(cu_offset);
    if (inserted) {
      Dwarf_Die cudie;
      slot->second = ::dwarf_offdie(dwarf, cu_offset, &cudie) != nullptr ? buildUnit(&cudie)
                                                                         : std::make_unique<Unit>();
    }
    last_unit_offset = cu_offset;
    last_unit = slot->second.get();
    return last_unit;
  }

  std::unique_ptr<Unit> buildUnit(Dwarf_Die* cudie) {
    auto u = std::make_unique<Unit>();
    Dwarf_Files* files = nullptr;
    size_t nfiles = 0;
    if (::dwarf_getsrcfiles(cudie, &files, &nfiles) == 0) {
      u->files.reserve(nfiles);
      for (size_t i = 0; i < nfiles; ++i) {
        u->files.push_back(intern(absolute(cudie, ::dwarf_filesrc(files, i, nullptr, nullptr))));
      }
    }
    buildLines(cudie, files, *u);
    buildScopes(cudie, *u);
    return u;
  }

  void buildLines(Dwarf_Die* cudie, Dwarf_Files* unit_files, Unit& u) {
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (::dwarf_getsrclines(cudie, &lines, &n) != 0) return;
    std::vector<LineRow>& rows = row_scratch;
    rows.clear();
    rows.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Dwarf_Line* l = ::dwarf_onesrcline(lines, i);
      Dwarf_Addr addr = 0;
      if (l == nullptr || ::dwarf_lineaddr(l, &addr) != 0) continue;
      LineRow r{addr, static_cast<uint32_t>(i), 0, kNoFile, 0, false};
      int line = 0;
      if (::dwarf_lineno(l, &line) == 0 && line > 0) r.line = static_cast<uint32_t>(line);
      ::dwarf_lineendsequence(l, &r.end);
      unsigned disc = 0;
      if (::dwarf_linediscriminator(l, &disc) == 0) r.discriminator = disc;
      Dwarf_Files* f = nullptr;
      size_t idx = 0;
      if (::dwarf_line_file(l, &f, &idx) == 0 && f == unit_files && idx < u.files.size()) {
        r.file = static_cast<uint32_t>(idx);
      }
      rows.push_back(r);
    }
    // libdw hands the rows sorted by address already; sort only when not.
    auto before = [](const LineRow& a, const LineRow& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.order < b.order;
    };
    if (!std::is_sorted(rows.begin(), rows.end(), before))
      std::sort(rows.begin(), rows.end(), before);
    // Per address, the last row that does not end a sequence covers up to
    // the next address; an address with only sequence ends starts a gap.
    for (size_t i = 0; i < rows.size();) {
      size_t j = i;
      const LineRow* pick = nullptr;
      for (; j < rows.size() && rows[j].addr == rows[i].addr; ++j) {
        if (!rows[j].end) pick = &rows[j];
      }
      if (pick != nullptr && j < rows.size()) {
        u.lines.push_back(
            LineRange{pick->addr, rows[j].addr, pick->line, pick->file, pick->discriminator});
      }
      i = j;
    }
  }

  // Collects the code ranges of function scopes in DIE order (parents before
  // children), then paints them so the innermost scope owns each address.
  void buildScopes(Dwarf_Die* cudie, Unit& u) {
    struct Range {
      uint64_t lo, hi;
      int32_t scope;
    };
    std::vector<Range> ranges;
    walk(cudie, -1, 0, u, [&](uint64_t lo, uint64_t hi, int32_t scope) {
      ranges.push_back(Range{lo, hi, scope});
    });
    // A later range paints over earlier ones: at each boundary the owner is
    // the latest range that covers it (a heap of started ranges by DIE
    // order; ranges that ended leave it when they reach the top).
    std::vector<uint64_t> bounds;
    bounds.reserve(ranges.size() * 2);
    for (const Range& r : ranges) {
      bounds.push_back(r.lo);
      bounds.push_back(r.hi);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    std::vector<uint32_t> by_lo(ranges.size());
    for (uint32_t i = 0; i < by_lo.size(); ++i) by_lo[i] = i;
    std::stable_sort(by_lo.begin(), by_lo.end(),
                     [&](uint32_t a, uint32_t b) { return ranges[a].lo < ranges[b].lo; });
    std::vector<uint32_t> heap;  // max-heap of range indexes
    size_t next = 0;
    int32_t owner = -1;
    for (uint64_t b : bounds) {
      for (; next < by_lo.size() && ranges[by_lo[next]].lo <= b; ++next) {
        heap.push_back(by_lo[next]);
        std::push_heap(heap.begin(), heap.end());
      }
      while (!heap.empty() && ranges[heap.front()].hi <= b) {
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
      }
      int32_t now = heap.empty() ? -1 : ranges[heap.front()].scope;
      if (now != owner) {
        u.segments.push_back(Segment{b, now});
        owner = now;
      }
    }
  }

  // The attributes walk() reads from a function scope's DIE (the first of
  // each, as dwarf_attr finds it).
  struct ScopeAttrs {
    enum { kLowPc, kHighPc, kRanges, kCallFile, kCallLine, kCount };
    Dwarf_Attribute attr[kCount] = {};
    bool has[kCount] = {};
  };

  static int collectScopeAttr(Dwarf_Attribute* attr, void* arg) {
    auto* c = static_cast<ScopeAttrs*>(arg);
    int slot = -1;
    switch (::dwarf_whatattr(attr)) {
      case DW_AT_low_pc:
        slot = ScopeAttrs::kLowPc;
        break;
      case DW_AT_high_pc:
        slot = ScopeAttrs::kHighPc;
        break;
      case DW_AT_ranges:
        slot = ScopeAttrs::kRanges;
        break;
      case DW_AT_call_file:
        slot = ScopeAttrs::kCallFile;
        break;
      case DW_AT_call_line:
        slot = ScopeAttrs::kCallLine;
        break;
      default:
        break;
    }
    if (slot >= 0 && !c->has[slot]) {
      c->attr[slot] = *attr;
      c->has[slot] = true;
    }
    return DWARF_CB_OK;
  }

  // [low_pc, high_pc) as dwarf_lowpc / dwarf_highpc read them (high_pc an
  // address or an offset from low_pc); nullopt in every other case, which
  // dwarf_ranges then handles (DW_AT_ranges, unusual forms, errors).
  static std::optional<std::pair<uint64_t, uint64_t>> lowHigh(ScopeAttrs& at) {
    if (!at.has[ScopeAttrs::kLowPc] || !at.has[ScopeAttrs::kHighPc]) return std::nullopt;
    Dwarf_Addr lo = 0;
    if (::dwarf_formaddr(&at.attr[ScopeAttrs::kLowPc], &lo) != 0) return std::nullopt;
    Dwarf_Attribute& high = at.attr[ScopeAttrs::kHighPc];
    switch (::dwarf_whatform(&high)) {
      case DW_FORM_addr: {
        Dwarf_Addr hi = 0;
        if (::dwarf_formaddr(&high, &hi) != 0) return std::nullopt;
        return std::make_pair(lo, hi);
      }
      case DW_FORM_data1:
      case DW_FORM_data2:
      case DW_FORM_data4:
      case DW_FORM_data8:
      case DW_FORM_udata: {
        Dwarf_Word len = 0;
        if (::dwarf_formudata(&high, &len) != 0) return std::nullopt;
        return std::make_pair(lo, lo + len);
      }
      default:
        return std::nullopt;
    }
  }

  template <typename Emit>
  void walk(Dwarf_Die* parent, int32_t parent_scope, int depth, Unit& u, Emit&& emit) {
    if (depth > kMaxDepth) return;
    Dwarf_Die child;
    if (::dwarf_child(parent, &child) != 0) return;
    do {
      int tag = ::dwarf_tag(&child);
      switch (tag) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_entry_point: {
          // One pass over the DIE's attributes. Declarations and abstract
          // instances have neither low_pc nor ranges: skipped.
          ScopeAttrs at;
          if (::dwarf_getattrs(&child, collectScopeAttr, &at, 0) < 0) break;
          if (!at.has[ScopeAttrs::kLowPc] && !at.has[ScopeAttrs::kRanges]) break;
          int32_t scope = -1;
          std::optional<uint64_t> first_lo;  // FunctionInfo::low_pc, even of an empty range
          auto add = [&](uint64_t lo, uint64_t hi) {
            if (!first_lo) first_lo = lo;
            if (lo >= hi) return;
            if (scope < 0) {
              scope = static_cast<int32_t>(u.scopes.size());
              Scope s;
              s.die = ::dwarf_dieoffset(&child);
              s.id = static_cast<uint32_t>(function_dies.size());
              function_dies.push_back(s.die);
              functions.emplace_back().low_pc = *first_lo;
              resolved.push_back(false);
              s.parent = parent_scope;
              s.inlined = tag == DW_TAG_inlined_subroutine;
              if (s.inlined) {
                Dwarf_Word v = 0;
                if (at.has[ScopeAttrs::kCallFile] &&
                    ::dwarf_formudata(&at.attr[ScopeAttrs::kCallFile], &v) == 0 &&
                    v < u.files.size()) {
                  s.call_file = static_cast<uint32_t>(v);
                }
                if (at.has[ScopeAttrs::kCallLine] &&
                    ::dwarf_formudata(&at.attr[ScopeAttrs::kCallLine], &v) == 0) {
                  s.call_line = static_cast<uint32_t>(v);
                }
              }
              u.scopes.push_back(s);
            }
            emit(lo, hi, scope);
          };
          if (std::optional<std::pair<uint64_t, uint64_t>> pc = lowHigh(at)) {
            add(pc->first, pc->second);  // what dwarf_ranges gives for low/high_pc
          } else {
            Dwarf_Addr base = 0;
            Dwarf_Addr lo = 0;
            Dwarf_Addr hi = 0;
            ptrdiff_t off = 0;
            while ((off = ::dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) add(lo, hi);
          }
          // Without code (declarations, abstract instances) nothing below has any.
          if (scope >= 0 && ::dwarf_haschildren(&child) > 0) {
            walk(&child, scope, depth + 1, u, emit);
          }
          break;
        }
        // GCC and Clang put the code of member functions in out-of-line
        // DIEs (DW_AT_specification) at namespace level, never inside the
        // class, so types are not entered: they hold most of the DIEs.
        case DW_TAG_lexical_block:
        case DW_TAG_try_block:
        case DW_TAG_catch_block:
        case DW_TAG_namespace:
        case DW_TAG_module:
          if (::dwarf_haschildren(&child) > 0) walk(&child, parent_scope, depth + 1, u, emit);
          break;
        default:
          break;
      }
    } while (::dwarf_siblingof(&child, &child) == 0);
  }

  static const LineRange* rowAt(const Unit& u, uint64_t pc) {
    auto it = std::upper_bound(u.lines.begin(), u.lines.end(), pc,
                               [](uint64_t a, const LineRange& r) { return a < r.lo; });
    if (it == u.lines.begin()) return nullptr;
    --it;
    return pc < it->hi ? &*it : nullptr;
  }

  static int32_t scopeAt(const Unit& u, uint64_t pc) {
    auto it = std::upper_bound(u.segments.begin(), u.segments.end(), pc,
                               [](uint64_t a, const Segment& s) { return a < s.lo; });
    if (it == u.segments.begin()) return -1;
    return std::prev(it)->scope;
  }

  static std::string_view fileOf(const Unit& u, uint32_t index) {
    return index < u.files.size() ? u.files[index] : std::string_view();
  }

  bool frames(uint64_t pc, std::vector<Frame>& out) {
    out.clear();
    Unit* u = unitFor(pc);
    if (u == nullptr) return false;
    const LineRange* row = rowAt(*u, pc);
    int32_t s = scopeAt(*u, pc);
    if (row == nullptr && s < 0) return false;
    Frame inner;
    if (row != nullptr) {
      inner.file = fileOf(*u, row->file);
      inner.line = row->line;
      inner.discriminator = row->discriminator;
    }
    if (s < 0) {
      out.push_back(inner);
      return true;
    }
    inner.die = u->scopes[s].die;
    inner.function = u->scopes[s].id;
    inner.inlined = u->scopes[s].inlined;
    out.push_back(inner);
    for (int guard = 0; u->scopes[s].inlined && u->scopes[s].parent >= 0 && guard < kMaxDepth;
         ++guard) {
      const Scope& child = u->scopes[s];
      s = child.parent;
      Frame f;
      f.die = u->scopes[s].die;
      f.function = u->scopes[s].id;
      f.inlined = u->scopes[s].inlined;
      f.file = fileOf(*u, child.call_file);
      f.line = child.call_line;
      out.push_back(f);
    }
    return true;
  }

  // The attributes function() reads, each from the first DIE that has it
  // along the DW_AT_abstract_origin / DW_AT_specification chain, as
  // dwarf_attr_integrate finds them, but with one pass over each DIE's
  // attributes instead of one per attribute and per DIE.
  struct ChainAttrs {
    enum { kLinkage, kMipsLinkage, kName, kDeclFile, kDeclLine, kCount };
    Dwarf_Attribute attr[kCount] = {};
    bool has[kCount] = {};
    Dwarf_Attribute origin = {};
    Dwarf_Attribute specification = {};
    bool has_origin = false;
    bool has_specification = false;
  };

  static int collectAttr(Dwarf_Attribute* attr, void* arg) {
    auto* c = static_cast<ChainAttrs*>(arg);
    int slot = -1;
    switch (::dwarf_whatattr(attr)) {
      case DW_AT_linkage_name:
        slot = ChainAttrs::kLinkage;
        break;
      case DW_AT_MIPS_linkage_name:
        slot = ChainAttrs::kMipsLinkage;
        break;
      case DW_AT_name:
        slot = ChainAttrs::kName;
        break;
      case DW_AT_decl_file:
        slot = ChainAttrs::kDeclFile;
        break;
      case DW_AT_decl_line:
        slot = ChainAttrs::kDeclLine;
        break;
      case DW_AT_abstract_origin:
        if (!c->has_origin) c->origin = *attr;
        c->has_origin = true;
        break;
      case DW_AT_specification:
        if (!c->has_specification) c->specification = *attr;
        c->has_specification = true;
        break;
      default:
        break;
    }
    if (slot >= 0 && !c->has[slot]) {
      c->attr[slot] = *attr;
      c->has[slot] = true;
    }
    return DWARF_CB_OK;
  }

  static ChainAttrs chainAttrs(Dwarf_Die* start) {
    ChainAttrs c;
    Dwarf_Die mem;
    Dwarf_Die* die = start;
    int chain = 16;  // as dwarf_attr_integrate
    do {
      c.has_origin = false;
      c.has_specification = false;
      if (::dwarf_getattrs(die, collectAttr, &c, 0) < 0) break;
      Dwarf_Attribute* next = c.has_origin          ? &c.origin
                              : c.has_specification ? &c.specification
                                                    : nullptr;
      if (next == nullptr) break;
      die = ::dwarf_formref_die(next, &mem);
    } while (die != nullptr && chain-- != 0);
    return c;
  }

  // dwarf_decl_file for the attribute found: the file index is in the line
  // table of the unit the attribute came from.
  static const char* declFile(ChainAttrs& a) {
    if (!a.has[ChainAttrs::kDeclFile]) return nullptr;
    Dwarf_Attribute& attr = a.attr[ChainAttrs::kDeclFile];
    Dwarf_Word idx = 0;
    if (::dwarf_formudata(&attr, &idx) != 0 || attr.cu == nullptr) return nullptr;
    Dwarf_Die cudie;
    if (::dwarf_cu_die(attr.cu, &cudie, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        nullptr) {
      return nullptr;
    }
    Dwarf_Files* files = nullptr;
    size_t nfiles = 0;
    if (::dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0 || idx >= nfiles) return nullptr;
    return ::dwarf_filesrc(files, idx, nullptr, nullptr);
  }

  const FunctionInfo& function(uint32_t id) {
    static const FunctionInfo kUnknown;
    if (id >= functions.size()) return kUnknown;
    FunctionInfo& info = functions[id];
    if (resolved[id]) return info;
    resolved[id] = true;
    Dwarf_Die die;
    if (::dwarf_offdie(dwarf, function_dies[id], &die) == nullptr) return info;
    ChainAttrs a = chainAttrs(&die);
    const char* linkage =
        a.has[ChainAttrs::kLinkage] ? ::dwarf_formstring(&a.attr[ChainAttrs::kLinkage]) : nullptr;
    if (linkage == nullptr && a.has[ChainAttrs::kMipsLinkage]) {
      linkage = ::dwarf_formstring(&a.attr[ChainAttrs::kMipsLinkage]);
    }
    if (linkage != nullptr) info.linkage_name = intern(linkage);
    if (a.has[ChainAttrs::kName]) {
      if (const char* name = ::dwarf_formstring(&a.attr[ChainAttrs::kName]); name != nullptr) {
        info.name = intern(name);
      }
    }
    Dwarf_Die cudie;
    bool have_cu = ::dwarf_diecu(&die, &cudie, nullptr, nullptr) != nullptr;
    if (have_cu) info.unmangled_language = unmangledLanguage(::dwarf_srclang(&cudie));
    const char* file = declFile(a);
    Dwarf_Word line = 0;
    if (file != nullptr && a.has[ChainAttrs::kDeclLine] &&
        ::dwarf_formudata(&a.attr[ChainAttrs::kDeclLine], &line) == 0 && line > 0 &&
        line <= INT32_MAX) {
      std::string path = have_cu ? absolute(&cudie, file) : file;
      info.decl_file = intern(std::move(path));
      info.decl_line = static_cast<uint32_t>(line);
    }
    return info;  // low_pc: set by walk(), from the same ranges
  }
};

DwarfIndex::DwarfIndex(const ElfFile& elf) : DwarfIndex(elf.elf()) {}

DwarfIndex::DwarfIndex(Elf* elf) : impl_(std::make_unique<Impl>()) {
  if (elf == nullptr) return;
  // A file without DWARF makes dwarf_begin_elf fail; that only means "no lines".
  impl_->dwarf = ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
}
DwarfIndex::DwarfIndex(DwarfIndex&&) noexcept = default;
DwarfIndex& DwarfIndex::operator=(DwarfIndex&&) noexcept = default;
DwarfIndex::~DwarfIndex() = default;

bool DwarfIndex::hasDebugInfo() const {
  return impl_ && impl_->dwarf != nullptr;
}

bool DwarfIndex::frames(Svma pc, std::vector<Frame>& out) {
  out.clear();
  return hasDebugInfo() && impl_->frames(pc.v, out);
}

const FunctionInfo& DwarfIndex::function(uint32_t id) {
  return impl_->function(id);
}

size_t DwarfIndex::functionCount() const {
  return impl_->functions.size();
}

std::optional<SourceLine> DwarfIndex::lookup(Svma pc) {
  if (!hasDebugInfo()) return std::nullopt;
  Unit* u = impl_->unitFor(pc.v);
  if (u == nullptr) return std::nullopt;
  const LineRange* row = Impl::rowAt(*u, pc.v);
  if (row == nullptr || row->file == kNoFile) return std::nullopt;
  return SourceLine{std::string(Impl::fileOf(*u, row->file)), row->line};
}

std::optional<SourceLine> DwarfIndex::declaration(Svma function_start) {
  if (!hasDebugInfo()) return std::nullopt;
  std::vector<Frame> fr;
  if (impl_->frames(function_start.v, fr) && fr.back().die != 0) {
    const FunctionInfo& info = impl_->function(fr.back().function);
    if (!info.decl_file.empty()) return SourceLine{std::string(info.decl_file), info.decl_line};
  }
  return lookup(function_start);
}

uint32_t DwarfIndex::startLine(Svma function_start) {
  auto d = declaration(function_start);
  return d ? d->line : 0;
}

}  // namespace strobe::symbolize
