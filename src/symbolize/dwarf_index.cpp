#include "symbolize/dwarf_index.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "symbolize/die_reader.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/line_program.hpp"
#include "symbolize/offset_map.hpp"
#include "symbolize/scope_names.hpp"
#include "symbolize/unit_index.hpp"

namespace strobe::symbolize {
namespace {

struct UnitRange {
  uint64_t low = 0;
  uint64_t high = 0;  // exclusive
  Dwarf_Off die = 0;
  uint32_t unit = 0;   // the unit's dense number in its list
  uint64_t bytes = 0;  // the unit's size in .debug_info (0: unknown)
};

// .debug_aranges read straight from its bytes: one UnitRange per non-empty
// (address, length) pair, `die` holding the unit's header offset and
// `unit` numbering distinct units by first appearance. Sets of versions
// other than 2, segmented addresses, or address sizes other than 4 and 8
// end the reading (what was read is kept: each set stands alone).
std::vector<UnitRange> readAranges(std::span<const uint8_t> sec, size_t& units) {
  std::vector<UnitRange> out;
  std::unordered_map<uint64_t, uint32_t> unit_of;
  const uint8_t* p = sec.data();
  const uint8_t* const end = sec.data() + sec.size();
  auto get = [](const uint8_t*& q, const uint8_t* e, int n, uint64_t& v) {
    if (e - q < n) return false;
    if (n == 8) {
      std::memcpy(&v, q, 8);
    } else if (n == 4) {
      uint32_t w;
      std::memcpy(&w, q, 4);
      v = w;
    } else {
      uint16_t h;
      std::memcpy(&h, q, 2);
      v = h;
    }
    q += n;
    return true;
  };
  while (end - p >= 4) {
    const uint8_t* const set = p;
    uint64_t length = 0;
    if (!get(p, end, 4, length)) break;
    int offset_size = 4;
    if (length == 0xffffffff) {
      offset_size = 8;
      if (!get(p, end, 8, length)) break;
    } else if (length >= 0xfffffff0) {
      break;
    }
    if (length > static_cast<uint64_t>(end - p)) break;
    const uint8_t* const set_end = p + length;
    uint64_t version = 0;
    uint64_t info_offset = 0;
    if (!get(p, set_end, 2, version) || version != 2 ||
        !get(p, set_end, offset_size, info_offset) || set_end - p < 2) {
      break;
    }
    const int address_size = p[0];
    const int segment_size = p[1];
    p += 2;
    if ((address_size != 4 && address_size != 8) || segment_size != 0) break;
    // Pairs start at a multiple of twice the address size from the set's start.
    const size_t pair = 2 * static_cast<size_t>(address_size);
    const size_t header = static_cast<size_t>(p - set);
    p = set + (header + pair - 1) / pair * pair;
    auto [it, fresh] = unit_of.try_emplace(info_offset, static_cast<uint32_t>(unit_of.size()));
    (void)fresh;
    while (set_end - p >= static_cast<ptrdiff_t>(pair)) {
      uint64_t address = 0;
      uint64_t size = 0;
      get(p, set_end, address_size, address);
      get(p, set_end, address_size, size);
      if (address == 0 && size == 0) break;
      if (size == 0 || address + size < address) continue;
      out.push_back(UnitRange{address, address + size, info_offset, it->second, 0});
    }
    p = set_end;
  }
  units = unit_of.size();
  std::sort(out.begin(), out.end(),
            [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
  return out;
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
  Elf* elf = nullptr;  // borrowed: more Dwarf handles for prepare()
  Dwarf* dwarf = nullptr;
  bool unit_ranges_built = false;
  std::vector<UnitRange> unit_ranges;  // sorted by low
  size_t unit_count = 0;               // distinct units in unit_ranges
  // Before unit_ranges is built (a walk over every unit's DIE: most of
  // what a large file's first lookup costs), a pc is placed by
  // .debug_aranges, checked against the unit's own ranges (aranges_read,
  // arange_ranges, arange_units; see arangeFor).
  bool aranges_read = false;
  std::vector<UnitRange> arange_ranges;  // sorted by low; die: the unit's header offset
  std::vector<uint64_t> arange_high;     // by index: the largest high of arange_ranges[0..i]
  struct ArangeUnit {
    bool checked = false;  // own, die and bytes are read
    bool usable = false;   // a compile or partial unit libdw reads
    Dwarf_Off die = 0;     // its DIE's offset
    uint64_t bytes = 0;
    std::vector<std::pair<uint64_t, uint64_t>> own;  // its DW_AT_ranges / low_pc..high_pc
  };
  std::vector<ArangeUnit> arange_units;
  std::vector<UnitRange> arange_found;  // what arangeFor returns points here (by unit)
  std::unordered_map<Dwarf_Off, std::unique_ptr<UnitIndex>> units;
  Dwarf_Off last_unit_offset = 0;
  UnitIndex* last_unit = nullptr;
  // By dense id; one entry holds all a first lookup reads (ids come in no
  // order: parallel arrays cost a cache miss each).
  struct Function {
    FunctionInfo info;
    uint64_t die = 0;
    uint64_t names_from = 0;  // Scope::names_from
    bool resolved = false;    // info has its names
  };
  std::deque<Function> functions;
  std::unordered_set<std::string> strings;
  UnitBuilder builder;
  DebugSections sections;  // of `elf`, read once: workers share them
  // Qualified names (report naming only), made on first use.
  std::unique_ptr<ScopeNames> scope_names;
  std::unordered_map<uint32_t, std::string> qualified;  // by function id

  ~Impl() {
    if (dwarf != nullptr) ::dwarf_end(dwarf);
  }

  std::string_view intern(std::string s) { return *strings.insert(std::move(s)).first; }

  void buildUnitRanges() {
    unit_ranges_built = true;
    std::vector<uint64_t> unit_bytes;  // by unit number: its size in .debug_info (0: unknown)
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Die cudie;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    uint32_t count = 0;
    // A unit's size: from its DIE to the next unit's (headers are alike).
    Dwarf_Off counted_at = 0;
    bool counting = false;  // unit_bytes.back() waits for the next unit
    while (::dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &cudie, nullptr) == 0) {
      cu = next;
      const Dwarf_Off at = ::dwarf_dieoffset(&cudie);
      if (counting && at > counted_at) unit_bytes.back() = at - counted_at;
      counting = false;
      if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
      Dwarf_Addr base = 0;
      Dwarf_Addr low = 0;
      Dwarf_Addr high = 0;
      ptrdiff_t off = 0;
      bool any = false;
      while ((off = ::dwarf_ranges(&cudie, off, &base, &low, &high)) > 0) {
        if (low >= high) continue;
        unit_ranges.push_back(UnitRange{low, high, ::dwarf_dieoffset(&cudie), count});
        any = true;
      }
      if (any) {
        ++count;
        unit_bytes.push_back(0);
        counted_at = at;
        counting = true;
      }
    }
    if (counting && sections.info.size() > counted_at) {
      unit_bytes.back() = sections.info.size() - counted_at;
    }
    for (UnitRange& r : unit_ranges) r.bytes = unit_bytes[r.unit];
    std::sort(unit_ranges.begin(), unit_ranges.end(),
              [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
    unit_count = count;
  }

  // The unit .debug_aranges places pc in, when that answer is the one the
  // walk of every unit (buildUnitRanges) would give: exactly one pair holds
  // pc, and the unit's own ranges (its DIE's, read as the walk reads them)
  // hold it too. nullptr otherwise, and for any doubt (no pair, two pairs,
  // a unit that disagrees): the caller then walks. GCC writes a unit's
  // aranges from the same ranges as its DIE; clang writes none by default.
  const UnitRange* arangeFor(uint64_t pc) {
    if (!aranges_read) {
      aranges_read = true;
      size_t count = 0;
      arange_ranges = readAranges(sections.aranges, count);
      arange_units.resize(count);
      arange_found.resize(count);
      arange_high.resize(arange_ranges.size());
      uint64_t high = 0;
      for (size_t i = 0; i < arange_ranges.size(); ++i) {
        high = std::max(high, arange_ranges[i].high);
        arange_high[i] = high;
      }
    }
    auto it = std::upper_bound(arange_ranges.begin(), arange_ranges.end(), pc,
                               [](uint64_t a, const UnitRange& r) { return a < r.low; });
    if (it == arange_ranges.begin()) return nullptr;
    const size_t i = static_cast<size_t>(it - arange_ranges.begin()) - 1;
    if (pc >= arange_ranges[i].high || (i > 0 && arange_high[i - 1] > pc)) return nullptr;
    const uint32_t n = arange_ranges[i].unit;
    ArangeUnit& u = arange_units[n];
    if (!u.checked) checkArangeUnit(arange_ranges[i].die, u);
    if (!u.usable) return nullptr;
    for (const auto& [lo, hi] : u.own) {
      if (lo <= pc && pc < hi) {
        arange_found[n] = UnitRange{lo, hi, u.die, n, u.bytes};
        return &arange_found[n];
      }
    }
    return nullptr;
  }

  // Reads what arangeFor checks of the unit whose header is at `header`.
  void checkArangeUnit(Dwarf_Off header, ArangeUnit& u) {
    u.checked = true;
    Dwarf_Off next = 0;
    size_t header_size = 0;
    if (::dwarf_next_unit(dwarf, header, &next, &header_size, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr) != 0) {
      return;
    }
    Dwarf_Die cudie;
    if (::dwarf_offdie(dwarf, header + header_size, &cudie) == nullptr) return;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    if (::dwarf_cu_info(cudie.cu, &version, &unit_type, nullptr, nullptr, nullptr, nullptr,
                        nullptr) != 0 ||
        (unit_type != DW_UT_compile && unit_type != DW_UT_partial)) {
      return;
    }
    u.usable = true;
    u.die = ::dwarf_dieoffset(&cudie);
    u.bytes = next > header ? next - header : 0;
    Dwarf_Addr base = 0;
    Dwarf_Addr low = 0;
    Dwarf_Addr high = 0;
    ptrdiff_t off = 0;
    while ((off = ::dwarf_ranges(&cudie, off, &base, &low, &high)) > 0) {
      if (low < high) u.own.emplace_back(low, high);
    }
  }

  // The range covering pc among the units' own ranges, or nullptr. Unit
  // ranges rarely overlap; look a few ranges back, never scan them all.
  const UnitRange* rangeFor(uint64_t pc) {
    if (!unit_ranges_built) {
      if (const UnitRange* r = arangeFor(pc)) return r;
      buildUnitRanges();
    }
    auto it = std::upper_bound(unit_ranges.begin(), unit_ranges.end(), pc,
                               [](uint64_t a, const UnitRange& r) { return a < r.low; });
    for (int steps = 0; it != unit_ranges.begin() && steps < 8; ++steps) {
      --it;
      if (pc < it->high) return &*it;
    }
    return nullptr;
  }

  // The unit covering pc: the units' own ranges first, then .debug_aranges.
  // The hot path touches no libdw: ranges carry the unit's slot.
  UnitIndex* unitFor(uint64_t pc) {
    if (dwarf == nullptr) return nullptr;
    if (const UnitRange* r = rangeFor(pc)) return unitAt(r->die);
    Dwarf_Die cudie;
    if (::dwarf_addrdie(dwarf, pc, &cudie) == nullptr) return nullptr;
    return unitAt(::dwarf_dieoffset(&cudie));
  }

  UnitIndex* unitAt(Dwarf_Off cu_offset) {
    if (cu_offset == last_unit_offset && last_unit != nullptr) return last_unit;
    auto [slot, inserted] = units.try_emplace(cu_offset);
    if (inserted) slot->second = adopt(builder.build(dwarf, cu_offset, sections));
    last_unit_offset = cu_offset;
    last_unit = slot->second.get();
    return last_unit;
  }

  // Takes a unit built on any thread into the index: its file names
  // interned, its scopes given dense function ids.
  std::unique_ptr<UnitIndex> adopt(BuiltUnit&& b) {
    auto u = std::make_unique<UnitIndex>(std::move(b.index));
    u->files.reserve(b.file_names.size());
    for (std::string& f : b.file_names) u->files.push_back(intern(std::move(f)));
    const bool unmangled = unmangledLanguage(b.language);
    for (size_t i = 0; i < u->scopes.size(); ++i) {
      Scope& s = u->scopes[i];
      s.id = static_cast<uint32_t>(functions.size());
      Function& f = functions.emplace_back();
      f.die = s.die;
      f.names_from = s.names_from;
      FunctionInfo& info = f.info;
      info.low_pc = b.low_pcs[i];
      info.unmangled_language = unmangled;
    }
    return u;
  }

  // The unit offsets of `pcs` not built yet, each once; adds their size in
  // .debug_info to `bytes`.
  std::vector<Dwarf_Off> unbuiltUnits(const std::vector<uint64_t>& pcs, size_t& bytes) {
    std::vector<Dwarf_Off> need;
    if (unit_ranges_built && units.size() >= unit_count) return need;  // all built
    std::unordered_set<Dwarf_Off> seen;
    for (uint64_t pc : pcs) {
      const UnitRange* r = rangeFor(pc);
      if (r == nullptr || !seen.insert(r->die).second) continue;
      if (units.find(r->die) != units.end()) continue;
      need.push_back(r->die);
      bytes += r->bytes;
    }
    std::sort(need.begin(), need.end());
    return need;
  }

  unsigned prepare(const std::vector<uint64_t>& pcs, unsigned threads, size_t bytes_per_worker) {
    size_t bytes = 0;
    std::vector<Dwarf_Off> need = unbuiltUnits(pcs, bytes);
    threads = std::min<unsigned>(threads, static_cast<unsigned>(need.size()));
    if (bytes_per_worker != 0) {
      threads = static_cast<unsigned>(std::min<size_t>(threads, 1 + bytes / bytes_per_worker));
    }
    if (threads <= 1 || elf == nullptr) {
      for (Dwarf_Off off : need) unitAt(off);
      return 1;
    }
    // One Dwarf handle per worker, opened here: libdw's per-unit caches are
    // not shared between threads. Worker 0 borrows the index's own handle.
    std::vector<Dwarf*> handles{dwarf};
    for (unsigned t = 1; t < threads; ++t) {
      Dwarf* h = ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
      if (h == nullptr) break;
      handles.push_back(h);
    }
    std::vector<BuiltUnit> built(need.size());
    std::atomic<size_t> next{0};
    auto work = [&](Dwarf* h) {
      UnitBuilder b;
      for (size_t i; (i = next.fetch_add(1)) < need.size();)
        built[i] = b.build(h, need[i], sections);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < handles.size(); ++t) pool.emplace_back(work, handles[t]);
    work(handles[0]);
    for (std::thread& t : pool) t.join();
    for (size_t t = 1; t < handles.size(); ++t) ::dwarf_end(handles[t]);
    for (size_t i = 0; i < need.size(); ++i) units[need[i]] = adopt(std::move(built[i]));
    return static_cast<unsigned>(handles.size());
  }

  static std::string_view fileOf(const UnitIndex& u, uint32_t index) {
    return index < u.files.size() ? u.files[index] : std::string_view();
  }

  bool frames(uint64_t pc, std::vector<Frame>& out) {
    out.clear();
    UnitIndex* u = unitFor(pc);
    if (u == nullptr) return false;
    const LineInfo* row = u->rowAt(pc);
    int32_t s = u->scopeAt(pc);
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
    for (int guard = 0; u->scopes[s].inlined && u->scopes[s].parent >= 0 && guard < kMaxDieDepth;
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

  // The attributes function() reads from each DIE along the chain, and the
  // two that continue it.
  enum ChainSlot { kLinkage, kMipsLinkage, kName, kDeclFile, kDeclLine, kOrigin, kSpecification };
  using ChainAttrs =
      DieAttrs<DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name, DW_AT_decl_file,
               DW_AT_decl_line, DW_AT_abstract_origin, DW_AT_specification>;

  // What a DIE's chain gives for each attribute function() reads: the value
  // from the first DIE along DW_AT_abstract_origin / DW_AT_specification
  // that has it (as dwarf_attr_integrate), resolved where it was found (a
  // decl_file index names a file of that DIE's own unit).
  struct ChainNames {
    const char* linkage = nullptr;
    const char* mips_linkage = nullptr;
    const char* name = nullptr;
    std::string_view decl_file;  // interned, absolute
    uint64_t decl_line = 0;
    bool has[kDeclLine + 1] = {};
  };

  // Memoized per DIE an abstract origin or specification points to: the
  // inlined instances and out-of-line copies of one function share them,
  // so each is read once. The concrete DIEs function() starts from are
  // each read once anyway and are not kept.
  ChainNames chainNames(Dwarf_Die* die, int chain) {
    const Dwarf_Off off = ::dwarf_dieoffset(die);
    if (const ChainNames* known = chain_names.find(off)) return *known;
    ChainNames n = readChain(die, chain);
    chain_names.insert(off, n);
    return n;
  }

  // The unit's reader, or nullptr when libdw reads it (die_reader.hpp).
  UnitReader* readerFor(Dwarf_CU* cu) {
    auto [it, inserted] = readers.try_emplace(cu);
    if (inserted) {
      auto r = std::make_unique<UnitReader>();
      if (r->open(cu)) it->second = std::move(r);
    }
    return it->second.get();
  }

  // A DIE's attributes: from its bytes when the unit's reader can, else
  // through libdw.
  bool readAttrs(Dwarf_Die* die, ChainAttrs& c) {
    if (UnitReader* r = readerFor(die->cu)) {
      const uint8_t* p = static_cast<const uint8_t*>(die->addr);
      const Abbrev* a = p != nullptr && r->at(::dwarf_dieoffset(die)) == p ? r->abbrev(p) : nullptr;
      if (a != nullptr && c.read(*r, *a, p)) return true;
      c = ChainAttrs{};
    }
    return c.read(die);
  }

  ChainNames readChain(Dwarf_Die* die, int chain) {
    ChainAttrs c;
    ChainNames n;
    if (readAttrs(die, c)) {
      auto str = [&](int slot) {
        return c.has[slot] ? ::dwarf_formstring(&c.attr[slot]) : nullptr;
      };
      n.linkage = str(kLinkage);
      n.mips_linkage = str(kMipsLinkage);
      n.name = str(kName);
      if (std::optional<uint64_t> file = c.constant(kDeclFile)) {
        n.decl_file = declFile(*file, c.attr[kDeclFile].cu);
      }
      n.decl_line = c.constant(kDeclLine).value_or(0);
      std::copy(c.has.begin(), c.has.begin() + kDeclLine + 1, std::begin(n.has));
      Dwarf_Attribute* next = c.has[kOrigin]          ? &c.attr[kOrigin]
                              : c.has[kSpecification] ? &c.attr[kSpecification]
                                                      : nullptr;
      Dwarf_Die mem;
      if (next != nullptr && chain > 0 && ::dwarf_formref_die(next, &mem) != nullptr) {
        const ChainNames up = chainNames(&mem, chain - 1);
        auto fill = [&](int slot, auto& mine, const auto& theirs) {
          if (n.has[slot] || !up.has[slot]) return;
          n.has[slot] = true;
          mine = theirs;
        };
        fill(kLinkage, n.linkage, up.linkage);
        fill(kMipsLinkage, n.mips_linkage, up.mips_linkage);
        fill(kName, n.name, up.name);
        fill(kDeclFile, n.decl_file, up.decl_file);
        fill(kDeclLine, n.decl_line, up.decl_line);
      }
    }
    return n;
  }

  // The file a DW_AT_decl_file attribute names: an index into the line table
  // of the unit the attribute came from, made absolute with that unit's
  // DW_AT_comp_dir. From the unit's index when it is built (libdw would
  // decode its line program again).
  std::string_view declFile(uint64_t idx, Dwarf_CU* cu) {
    if (cu == nullptr) return {};
    Dwarf_Die cudie;
    if (::dwarf_cu_die(cu, &cudie, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        nullptr) {
      return {};
    }
    if (auto it = units.find(::dwarf_dieoffset(&cudie)); it != units.end()) {
      return idx < it->second->files.size() ? it->second->files[idx] : std::string_view();
    }
    std::vector<std::string> files;
    std::vector<LineRow> rows;
    if (!unitLines(&cudie, sections, files, rows) || idx >= files.size()) return {};
    return intern(std::move(files[idx]));
  }

  OffsetMap<ChainNames> chain_names;
  std::unordered_map<Dwarf_CU*, std::unique_ptr<UnitReader>> readers;  // nullptr: libdw reads it

  const FunctionInfo& function(uint32_t id) {
    static const FunctionInfo kUnknown;
    if (id >= functions.size()) return kUnknown;
    Function& f = functions[id];
    FunctionInfo& info = f.info;
    if (f.resolved) return info;
    f.resolved = true;
    ChainNames n;
    if (f.names_from != 0) {
      // All of the DIE's names are its origin's (or specification's): the
      // memo has them when an earlier instance read them.
      Dwarf_Die target;
      if (const ChainNames* known = chain_names.find(f.names_from)) {
        n = *known;
      } else if (::dwarf_offdie(dwarf, f.names_from, &target) != nullptr) {
        n = chainNames(&target, 15);  // one step of readChain(die, 16) taken
      }
    } else {
      Dwarf_Die die;
      if (::dwarf_offdie(dwarf, f.die, &die) == nullptr) return info;
      n = readChain(&die, 16);  // 16: as dwarf_attr_integrate
    }
    const char* linkage = n.linkage != nullptr ? n.linkage : n.mips_linkage;
    // Names stay where libdw found them, in the file's string sections,
    // which live as long as the handle: no copy, no hashing.
    if (linkage != nullptr) info.linkage_name = linkage;
    if (n.name != nullptr) info.name = n.name;
    if (!n.decl_file.empty() && n.has[kDeclLine] && n.decl_line > 0 && n.decl_line <= INT32_MAX) {
      info.decl_file = n.decl_file;
      info.decl_line = static_cast<uint32_t>(n.decl_line);
    }
    return info;  // low_pc and language: set by adopt()
  }
};

DwarfIndex::DwarfIndex(const ElfFile& elf) : DwarfIndex(elf.elf()) {}

DwarfIndex::DwarfIndex(Elf* elf) : impl_(std::make_unique<Impl>()) {
  if (elf == nullptr) return;
  // A file without DWARF makes dwarf_begin_elf fail; that only means "no lines".
  impl_->elf = elf;
  impl_->dwarf = ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (impl_->dwarf != nullptr) impl_->sections = debugSections(elf);
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

unsigned DwarfIndex::prepare(const std::vector<Svma>& pcs, unsigned threads,
                             size_t bytes_per_worker) {
  if (!hasDebugInfo()) return 0;
  std::vector<uint64_t> raw(pcs.size());
  for (size_t i = 0; i < pcs.size(); ++i) raw[i] = pcs[i].v;
  return impl_->prepare(raw, threads, bytes_per_worker);
}

const FunctionInfo& DwarfIndex::function(uint32_t id) {
  return impl_->function(id);
}

std::string_view DwarfIndex::qualifiedName(uint32_t id) {
  if (!hasDebugInfo() || id >= impl_->functions.size()) return {};
  auto [it, inserted] = impl_->qualified.try_emplace(id);
  if (inserted) {
    if (!impl_->scope_names) impl_->scope_names = std::make_unique<ScopeNames>(impl_->dwarf);
    it->second = impl_->scope_names->qualifiedName(impl_->functions[id].die);
  }
  return it->second;
}

size_t DwarfIndex::functionCount() const {
  return impl_->functions.size();
}

std::optional<SourceLine> DwarfIndex::lookup(Svma pc) {
  if (!hasDebugInfo()) return std::nullopt;
  UnitIndex* u = impl_->unitFor(pc.v);
  if (u == nullptr) return std::nullopt;
  const LineInfo* row = u->rowAt(pc.v);
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

std::vector<DwarfIndex::LineRange> DwarfIndex::lineRows(Svma lo, Svma hi) {
  std::vector<LineRange> out;
  if (!hasDebugInfo() || lo.v >= hi.v) return out;
  UnitIndex* u = impl_->unitFor(lo.v);
  if (u == nullptr || u->line_lo.empty()) return out;
  size_t i = u->line_buckets.upperBound(u->line_lo, lo.v);
  if (i > 0) --i;
  for (; i < u->line_lo.size() && u->line_lo[i] < hi.v; ++i) {
    const LineInfo& r = u->line_info[i];
    LineRange row;
    row.address = std::max(u->line_lo[i], lo.v);
    if (r.line != kGapLine && r.file != kNoFile) {
      row.file = Impl::fileOf(*u, r.file);
      row.line = r.line;
    }
    // Rows that say the same as the one before add nothing.
    if (!out.empty() && out.back().file == row.file && out.back().line == row.line) continue;
    out.push_back(row);
  }
  return out;
}

uint32_t DwarfIndex::startLine(Svma function_start) {
  auto d = declaration(function_start);
  return d ? d->line : 0;
}

}  // namespace strobe::symbolize
