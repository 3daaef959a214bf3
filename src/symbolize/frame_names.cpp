#include "symbolize/frame_names.hpp"

#include "symbolize/demangle.hpp"

namespace strobe::symbolize {
namespace {

bool isMangled(std::string_view name) {
  return name.size() > 2 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

}  // namespace

std::string_view withoutVersion(std::string_view symbol) {
  // "name@VER" / "name@@VER": a version is letters, digits, '_' and '.'.
  size_t at = symbol.find('@');
  if (at == 0 || at == std::string_view::npos) return symbol;
  size_t v = at + 1;
  if (v < symbol.size() && symbol[v] == '@') ++v;
  if (v == symbol.size()) return symbol;
  for (size_t i = v; i < symbol.size(); ++i) {
    char c = symbol[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) return symbol;
  }
  return symbol.substr(0, at);
}

void nameFrames(DwarfIndex& dwarf, const SymbolTable& symbols, Svma pc, std::vector<Frame>& scratch,
                std::vector<NamedFrame>& out, bool qualify) {
  std::optional<SymbolMatch> sym = symbols.lookup(pc);
  bool known = dwarf.frames(pc, scratch);
  if (known && scratch.back().die != 0) {
    for (size_t i = 0; i < scratch.size(); ++i) {
      const Frame& f = scratch[i];
      const FunctionInfo& info = dwarf.function(f.function);
      bool outermost = i + 1 == scratch.size();
      std::string_view raw = info.linkage_name;
      // An unmangled linkage name is an assembler label (glibc's
      // __GI___libc_malloc for __libc_malloc): not the name users know.
      if (!raw.empty() && !isMangled(raw)) raw = {};
      std::string_view system;
      if (outermost && sym) {
        if (raw.empty() && (sym->start.v == info.low_pc || isClone(sym->name))) {
          raw = sym->name;
        } else if (!raw.empty() && cloneBase(sym->name) == raw) {
          system = sym->name;
        }
      }
      std::string qualified;
      if (raw.empty() && !info.name.empty()) {
        raw = info.name;
        // A DWARF name alone is short ("operator()"): qualified by its
        // scopes, it tells main's lambda from std::thread's invoker.
        if (qualify && !info.unmangled_language) qualified = dwarf.qualifiedName(f.function);
      }
      if (raw.empty() && outermost && sym) raw = sym->name;
      NamedFrame nf;
      if (!qualified.empty()) {
        nf.name = std::move(qualified);
      } else if (raw.empty()) {
        nf.name = "??";
      } else {
        const bool symbol = sym && raw.data() == sym->name.data();
        nf.name = demangle(cloneBase(symbol ? withoutVersion(raw) : raw));
      }
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
  nf.name = demangle(cloneBase(withoutVersion(sym->name)));
  nf.system_name = sym->name;
  nf.file = known ? scratch[0].file : std::string_view();
  nf.line = known ? scratch[0].line : 0;
  nf.line_file = nf.file;
  nf.raw_line = nf.line;
  out.push_back(std::move(nf));
}

}  // namespace strobe::symbolize
