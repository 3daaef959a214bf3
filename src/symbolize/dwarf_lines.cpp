#include "symbolize/dwarf_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <vector>

#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {

struct DwarfLines::Impl {
  struct CuRange {
    uint64_t low = 0;
    uint64_t high = 0;  // exclusive
    Dwarf_Off die_offset = 0;
  };

  Dwarf* dwarf = nullptr;
  bool cu_ranges_built = false;
  std::vector<CuRange> cu_ranges;  // sorted by low

  ~Impl() {
    if (dwarf != nullptr) ::dwarf_end(dwarf);
  }

  // The compile unit covering `pc`: .debug_aranges through libdw first, then
  // the units' own DW_AT_low_pc/high_pc/ranges (producers may omit aranges).
  bool cuDie(uint64_t pc, Dwarf_Die* out) {
    if (::dwarf_addrdie(dwarf, pc, out) != nullptr) return true;
    if (!cu_ranges_built) buildCuRanges();
    auto it = std::upper_bound(cu_ranges.begin(), cu_ranges.end(), pc,
                               [](uint64_t a, const CuRange& r) { return a < r.low; });
    // Unit ranges rarely overlap; look a few ranges back, never scan them all.
    for (int steps = 0; it != cu_ranges.begin() && steps < 8; ++steps) {
      --it;
      if (pc < it->high) return ::dwarf_offdie(dwarf, it->die_offset, out) != nullptr;
    }
    return false;
  }

  void buildCuRanges() {
    cu_ranges_built = true;
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
        if (low < high) cu_ranges.push_back(CuRange{low, high, ::dwarf_dieoffset(&cudie)});
      }
    }
    std::sort(cu_ranges.begin(), cu_ranges.end(),
              [](const CuRange& a, const CuRange& b) { return a.low < b.low; });
  }

  static std::string absolute(Dwarf_Die* cu, const char* file) {
    if (file == nullptr) return {};
    std::string path(file);
    if (path.empty() || path.front() == '/') return path;
    Dwarf_Attribute attr;
    const char* dir = ::dwarf_formstring(::dwarf_attr(cu, DW_AT_comp_dir, &attr));
    if (dir == nullptr || *dir == '\0') return path;
    std::string joined(dir);
    if (joined.back() != '/') joined.push_back('/');
    return joined + path;
  }

  std::optional<SourceLine> lineAt(Dwarf_Die* cu, uint64_t pc) {
    Dwarf_Line* row = ::dwarf_getsrc_die(cu, pc);
    if (row == nullptr) return std::nullopt;
    int line = 0;
    if (::dwarf_lineno(row, &line) != 0) return std::nullopt;
    const char* file = ::dwarf_linesrc(row, nullptr, nullptr);
    if (file == nullptr) return std::nullopt;
    return SourceLine{absolute(cu, file), line > 0 ? static_cast<uint32_t>(line) : 0};
  }

  // The subprogram whose code holds `pc`, searched through the scopes that
  // can hold function definitions (namespaces, classes, ...) but not into
  // function bodies: nested subprograms and inlined callees are not "the
  // function" of a symbol. (dwarf_getscopes would do, but leaks its array when
  // it fails on malformed DWARF, and resolves more than needed.)
  static bool findSubprogram(Dwarf_Die* parent, uint64_t pc, Dwarf_Die* out, int depth) {
    if (depth > 32) return false;  // deeper than any real program: hostile input
    Dwarf_Die child;
    if (::dwarf_child(parent, &child) != 0) return false;
    while (true) {
      switch (::dwarf_tag(&child)) {
        case DW_TAG_subprogram:
          if (::dwarf_haspc(&child, pc) > 0) {
            *out = child;
            return true;
          }
          break;
        case DW_TAG_namespace:
        case DW_TAG_module:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          if (findSubprogram(&child, pc, out, depth + 1)) return true;
          break;
        default:
          break;
      }
      Dwarf_Die next;
      if (::dwarf_siblingof(&child, &next) != 0) return false;
      child = next;
    }
  }

  std::optional<SourceLine> declaration(uint64_t start) {
    Dwarf_Die cu;
    if (!cuDie(start, &cu)) return std::nullopt;
    Dwarf_Die fn;
    if (findSubprogram(&cu, start, &fn, 0)) {
      int line = 0;
      const char* file = ::dwarf_decl_file(&fn);  // follows DW_AT_specification/abstract_origin
      if (file != nullptr && ::dwarf_decl_line(&fn, &line) == 0 && line > 0) {
        return SourceLine{absolute(&cu, file), static_cast<uint32_t>(line)};
      }
    }
    return lineAt(&cu, start);
  }
};

DwarfLines::DwarfLines(const ElfFile& elf) : impl_(std::make_unique<Impl>()) {
  // A file without DWARF makes dwarf_begin_elf fail; that only means "no lines".
  if (elf.elf() != nullptr) impl_->dwarf = ::dwarf_begin_elf(elf.elf(), DWARF_C_READ, nullptr);
}
DwarfLines::DwarfLines(DwarfLines&&) noexcept = default;
DwarfLines& DwarfLines::operator=(DwarfLines&&) noexcept = default;
DwarfLines::~DwarfLines() = default;

bool DwarfLines::hasDebugInfo() const {
  return impl_ && impl_->dwarf != nullptr;
}

std::optional<SourceLine> DwarfLines::lookup(Svma pc) const {
  if (!hasDebugInfo()) return std::nullopt;
  Dwarf_Die cu;
  if (!impl_->cuDie(pc.v, &cu)) return std::nullopt;
  return impl_->lineAt(&cu, pc.v);
}

std::optional<SourceLine> DwarfLines::declaration(Svma function_start) const {
  if (!hasDebugInfo()) return std::nullopt;
  return impl_->declaration(function_start.v);
}

uint32_t DwarfLines::startLine(Svma function_start) const {
  auto d = declaration(function_start);
  return d ? d->line : 0;
}

}  // namespace strobe::symbolize
