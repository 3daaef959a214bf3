// What the DWARF targets share: an ELF image of DWARF sections opened with
// libelf (elf_memory, no file), and a pass over every unit that builds
// strobe's per-unit index (UnitBuilder: strobe's line-program decoder and
// scope scan, libdw's walk where they give up) and then looks the unit's
// addresses up through a DwarfIndex, naming each frame.
// Owns: the image and the Elf handle (released on destruction).
#pragma once

#include <libelf.h>

#include <elfutils/libdw.h>

#include <cstdint>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "symbolize/debug_sections.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/frame_names.hpp"
#include "symbolize/scope_scan.hpp"
#include "symbolize/symbol_table.hpp"
#include "symbolize/unit_index.hpp"

namespace strobe::fuzz {

class DwarfImage {
 public:
  explicit DwarfImage(const std::vector<Section>& sections) : image_(elfImage(sections)) {
    static const bool init = ::elf_version(EV_CURRENT) != EV_NONE;
    (void)init;
    elf_ = ::elf_memory(reinterpret_cast<char*>(image_.data()), image_.size());
  }
  ~DwarfImage() {
    if (elf_ != nullptr) ::elf_end(elf_);
  }
  DwarfImage(const DwarfImage&) = delete;
  DwarfImage& operator=(const DwarfImage&) = delete;
  [[nodiscard]] Elf* elf() const { return elf_; }

 private:
  std::vector<uint8_t> image_;
  Elf* elf_ = nullptr;
};

// Builds every unit (at most kMaxUnits) both ways, then looks up and names
// the first addresses of their scopes and line rows.
inline void exerciseDwarf(Elf* elf) {
  constexpr int kMaxUnits = 64;
  constexpr size_t kMaxPcs = 256;
  if (elf == nullptr) return;
  std::vector<Svma> pcs;
  {
    Dwarf* dwarf = ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
    if (dwarf == nullptr) return;
    const symbolize::DebugSections sections = symbolize::debugSections(elf);
    symbolize::UnitBuilder builder;
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Die cudie;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    for (int n = 0; n < kMaxUnits &&
                    ::dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &cudie, nullptr) == 0;
         ++n) {
      cu = next;
      symbolize::BuiltUnit unit = builder.build(dwarf, ::dwarf_dieoffset(&cudie), sections);
      symbolize::ScopeOutput walked;
      symbolize::ScopeSink sink(walked);
      symbolize::walkScopes(&cudie, sink);
      for (uint64_t pc : unit.low_pcs) {
        if (pcs.size() < kMaxPcs) pcs.emplace_back(pc);
      }
      for (uint64_t pc : unit.index.line_lo) {
        if (pcs.size() < kMaxPcs) pcs.emplace_back(pc);
      }
      for (const symbolize::CodeRange& r : walked.ranges) {
        if (pcs.size() < kMaxPcs) pcs.emplace_back(r.lo);
      }
    }
    ::dwarf_end(dwarf);
  }
  symbolize::DwarfIndex index(elf);
  if (!index.hasDebugInfo()) return;
  index.prepare(pcs, 1);
  const symbolize::SymbolTable no_symbols;
  std::vector<symbolize::Frame> frames;
  std::vector<symbolize::NamedFrame> named;
  for (Svma pc : pcs) {
    if (index.frames(pc, frames)) {
      for (const symbolize::Frame& f : frames) {
        if (f.function != symbolize::kNoFunction) (void)index.function(f.function);
      }
    }
    (void)index.lookup(pc);
    (void)index.declaration(pc);
    named.clear();
    symbolize::nameFrames(index, no_symbols, pc, frames, named);
  }
}

}  // namespace strobe::fuzz
