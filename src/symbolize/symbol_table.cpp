#include "symbolize/symbol_table.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {
namespace {

int bindingRank(uint8_t binding) {
  switch (binding) {
    case STB_GLOBAL:
    case STB_GNU_UNIQUE:
      return 0;
    case STB_WEAK:
      return 1;
    default:
      return 2;
  }
}

size_t leadingUnderscores(std::string_view name) {
  size_t n = 0;
  while (n < name.size() && name[n] == '_') ++n;
  return n;
}

// Among aliases (symbols at one address), binutils' preferred one first: a
// strict weak order, as is publicFirstTie's. Only aliases get here (the
// key scans long C++ names).
bool preferredTie(const RawSymbol& a, const RawSymbol& b) {
  auto key = [](const RawSymbol& s) {
    return std::make_tuple(s.value, bindingRank(s.binding), s.hidden_version, s.size == 0,
                           leadingUnderscores(s.name), s.name);
  };
  return key(a) < key(b);
}

// A name with a non-default version ("cfree@GLIBC_2.2.5", one '@'), as a
// .symtab writes versioned definitions.
bool nonDefaultVersion(std::string_view name) {
  size_t at = name.find('@');
  return at != std::string_view::npos && at > 0 && name.substr(at, 2) != "@@";
}

// AliasPreference::kPublic's order among aliases.
bool publicFirstTie(const RawSymbol& a, const RawSymbol& b) {
  auto key = [](const RawSymbol& s) {
    const bool internal = s.binding == STB_LOCAL || s.hidden_version || nonDefaultVersion(s.name);
    return std::make_tuple(s.value, internal, leadingUnderscores(s.name),
                           s.name.substr(0, s.name.find('@')).size(), bindingRank(s.binding),
                           s.size == 0, s.name);
  };
  return key(a) < key(b);
}

// Sorts by address (inlined: the address decides almost every comparison),
// then by `tie` (preferredTie or publicFirstTie) among aliases.
template <bool (*tie)(const RawSymbol&, const RawSymbol&)>
void sortSymbols(std::vector<RawSymbol>& raw) {
  std::sort(raw.begin(), raw.end(), [](const RawSymbol& a, const RawSymbol& b) {
    return a.value != b.value ? a.value < b.value : tie(a, b);
  });
}

// End of the section with index `shndx` (sh_addr + sh_size), memoized.
class SectionLimits {
 public:
  explicit SectionLimits(Elf* elf) : elf_(elf) {}
  uint64_t of(size_t shndx) {
    auto [it, inserted] = limits_.try_emplace(shndx, UINT64_MAX);
    if (inserted) {
      GElf_Shdr sh;
      Elf_Scn* scn = ::elf_getscn(elf_, shndx);
      if (scn != nullptr && ::gelf_getshdr(scn, &sh) != nullptr &&
          sh.sh_size <= UINT64_MAX - sh.sh_addr) {
        it->second = sh.sh_addr + sh.sh_size;
      }
    }
    return it->second;
  }

 private:
  Elf* elf_;
  std::unordered_map<size_t, uint64_t> limits_;
};

// The symbol's entry, unless it is not a function strobe can name.
bool namedFunction(unsigned type, uint16_t shndx) {
  if (type != STT_FUNC && type != STT_GNU_IFUNC) return false;
  return shndx != SHN_UNDEF && shndx != SHN_ABS && shndx != SHN_COMMON;
}

// The table's names, when they can be read in place: a string table whose
// last byte ends every name (then any offset inside it is a whole string),
// as every linker writes them. Null otherwise: elf_strptr checks each name.
const Elf_Data* namesInPlace(Elf* elf, size_t strtab) {
  Elf_Scn* scn = ::elf_getscn(elf, strtab);
  Elf_Data* d = scn != nullptr ? ::elf_getdata(scn, nullptr) : nullptr;
  if (d == nullptr || d->d_buf == nullptr || d->d_size == 0) return nullptr;
  return static_cast<const char*>(d->d_buf)[d->d_size - 1] == '\0' ? d : nullptr;
}

// `versyms`: the table's SHT_GNU_versym data (for .dynsym), or nullptr.
// ELF64 tables, which libelf hands over in memory layout (d_type ELF_T_SYM),
// are read in place: 30,000 gelf_getsym and elf_strptr calls were most of
// reading a large program's table.
void readTable(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, Elf_Data* versyms,
               SectionLimits& limits, std::vector<RawSymbol>& out) {
  Elf_Data* data = ::elf_getdata(scn, nullptr);
  size_t entsize = ::gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  if (data == nullptr || entsize == 0) return;
  size_t count = data->d_size / entsize;
  out.reserve(out.size() + count);  // most are functions: no growth copies of 48-byte entries
  auto add = [&](size_t i, const char* name, uint64_t value, uint64_t size, unsigned binding,
                 uint16_t shndx) {
    if (name == nullptr || *name == '\0') return;
    uint64_t limit = shndx == SHN_XINDEX ? UINT64_MAX : limits.of(shndx);
    GElf_Versym version = 0;
    bool hidden = versyms != nullptr &&
                  ::gelf_getversym(versyms, static_cast<int>(i), &version) != nullptr &&
                  (version & 0x8000) != 0;  // VERSYM_HIDDEN
    out.push_back(RawSymbol{name, value, size, static_cast<uint8_t>(binding), limit, hidden});
  };
  const Elf_Data* names = namesInPlace(elf, sh.sh_link);
  if (::gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM && names != nullptr &&
      data->d_buf != nullptr &&
      reinterpret_cast<uintptr_t>(data->d_buf) % alignof(Elf64_Sym) == 0) {
    const auto* syms = static_cast<const Elf64_Sym*>(data->d_buf);
    const auto* strs = static_cast<const char*>(names->d_buf);
    for (size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
      const Elf64_Sym& sym = syms[i];
      if (!namedFunction(ELF64_ST_TYPE(sym.st_info), sym.st_shndx)) continue;
      if (sym.st_name >= names->d_size) continue;
      add(i, strs + sym.st_name, sym.st_value, sym.st_size, ELF64_ST_BIND(sym.st_info),
          sym.st_shndx);
    }
    return;
  }
  for (size_t i = 1; i < count; ++i) {
    GElf_Sym sym;
    if (::gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
    if (!namedFunction(GELF_ST_TYPE(sym.st_info), sym.st_shndx)) continue;
    add(i, ::elf_strptr(elf, sh.sh_link, sym.st_name), sym.st_value, sym.st_size,
        GELF_ST_BIND(sym.st_info), sym.st_shndx);
  }
}

}  // namespace

SymbolTable SymbolTable::read(const ElfFile& file, AliasPreference preference) {
  Elf* elf = file.elf();
  std::vector<RawSymbol> raw;
  SectionLimits limits(elf);
  std::unordered_map<size_t, Elf_Data*> versyms;  // by the index of their symbol table
  for (Elf_Scn* scn = ::elf_nextscn(elf, nullptr); scn != nullptr; scn = ::elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) != nullptr && sh.sh_type == SHT_GNU_versym) {
      versyms[sh.sh_link] = ::elf_getdata(scn, nullptr);
    }
  }
  for (Elf_Scn* scn = ::elf_nextscn(elf, nullptr); scn != nullptr; scn = ::elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) continue;
    auto v = sh.sh_type == SHT_DYNSYM ? versyms.find(::elf_ndxscn(scn)) : versyms.end();
    readTable(elf, scn, sh, v != versyms.end() ? v->second : nullptr, limits, raw);
  }
  return build(std::move(raw), preference);
}

SymbolTable SymbolTable::build(std::vector<RawSymbol> raw, AliasPreference preference) {
  if (preference == AliasPreference::kPublic) {
    sortSymbols<publicFirstTie>(raw);
  } else {
    sortSymbols<preferredTie>(raw);
  }
  SymbolTable t;
  size_t name_bytes = 0;
  for (const RawSymbol& r : raw) name_bytes += r.name.size();
  t.entries_.reserve(raw.size());
  t.names_.reserve(name_bytes);  // an upper bound: aliases' names are left out
  for (size_t i = 0; i < raw.size();) {
    const RawSymbol& best = raw[i];
    uint64_t size = best.size;
    uint64_t limit = best.limit;
    size_t j = i;
    for (; j < raw.size() && raw[j].value == best.value; ++j) {
      size = size != 0 ? size : raw[j].size;  // a size-0 winner borrows an alias's size
      limit = std::min(limit, raw[j].limit);
    }
    uint64_t next = j < raw.size() ? raw[j].value : UINT64_MAX;
    Entry e;
    e.start = best.value;
    e.size = size;
    if (size != 0) {
      e.end = size <= UINT64_MAX - e.start ? e.start + size : UINT64_MAX;
    } else {
      e.end = std::max(std::min(next, limit), e.start + 1);
    }
    e.name_offset = t.names_.size();
    e.name_length = static_cast<uint32_t>(std::min<size_t>(best.name.size(), UINT32_MAX));
    t.names_.append(best.name.substr(0, e.name_length));
    t.entries_.push_back(e);
    i = j;
  }
  // Parent links: the enclosing entries of each entry, via a stack of open ranges.
  std::vector<uint32_t> open;
  for (uint32_t k = 0; k < t.entries_.size(); ++k) {
    Entry& e = t.entries_[k];
    while (!open.empty() && t.entries_[open.back()].end <= e.start) open.pop_back();
    e.parent = open.empty() ? kNoParent : open.back();
    open.push_back(k);
  }
  return t;
}

std::optional<SymbolMatch> SymbolTable::lookup(Svma addr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr.v,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  auto k = static_cast<uint32_t>(it - entries_.begin() - 1);
  while (k != kNoParent) {
    const Entry& e = entries_[k];
    if (addr.v < e.end) {
      return SymbolMatch{std::string_view(names_).substr(e.name_offset, e.name_length),
                         Svma(e.start), e.size, Svma(e.end)};
    }
    k = e.parent;
  }
  return std::nullopt;
}

std::optional<SymbolMatch> SymbolTable::nearest(Svma addr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr.v,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  const Entry& e = *std::prev(it);
  return SymbolMatch{std::string_view(names_).substr(e.name_offset, e.name_length), Svma(e.start),
                     e.size, Svma(e.end)};
}

}  // namespace strobe::symbolize
