#include "symbolize/frame_names.hpp"

#include "symbolize/demangle.hpp"

namespace strobe::symbolize {

void nameFrames(DwarfIndex& dwarf, const SymbolTable& symbols, Svma pc, std::vector<Frame>& scratch,
                std::vector<NamedFrame>& out) {
  std::optional<SymbolMatch> sym = symbols.lookup(pc);
  bool known = dwarf.frames(pc, scratch);
  if (known && scratch.back().die != 0) {
    for (size_t i = 0; i < scratch.size(); ++i) {
      const Frame& f = scratch[i];
      const FunctionInfo& info = dwarf.function(f.function);
      bool outermost = i + 1 == scratch.size();
      std::string_view raw = info.linkage_name;
      std::string_view system;
      if (outermost && sym) {
        if (raw.empty() && (sym->start.v == info.low_pc || isClone(sym->name))) {
          raw = sym->name;
        } else if (!raw.empty() && cloneBase(sym->name) == raw) {
          system = sym->name;
        }
      }
      if (raw.empty()) raw = info.name;
      if (raw.empty() && outermost && sym) raw = sym->name;
      NamedFrame nf;
      nf.name = raw.empty() ? std::string("??") : demangle(cloneBase(raw));
      nf.system_name = system.empty() ? raw : system;
      nf.file = info.decl_file.empty() ? f.file : info.decl_file;
      // A line from another file than the function's (an #include inside a
      // body) would read as a line of the function's file: unknown there.
      nf.line = f.file == nf.file ? f.line : 0;
      nf.decl_line = info.decl_line;
      nf.line_file = f.file;
      nf.raw_line = f.line;
      nf.inlined = f.inlined;
      out.push_back(std::move(nf));
    }
    return;
  }
  if (!sym) return;
  NamedFrame nf;
  nf.name = demangle(cloneBase(sym->name));
  nf.system_name = sym->name;
  nf.file = known ? scratch[0].file : std::string_view();
  nf.line = known ? scratch[0].line : 0;
  nf.line_file = nf.file;
  nf.raw_line = nf.line;
  out.push_back(std::move(nf));
}

}  // namespace strobe::symbolize
