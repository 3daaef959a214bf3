// A whole ELF file as `strobe record`/`report` and `strobe symbolize` read
// a module: ElfFile (headers, segments, build-id, compressed debug sections
// inflated), its symbol tables, its DWARF through the index, strobe's
// names for each frame, and addr2line's answers with every option. The
// seeds are small programs from GCC and Clang, plain, stripped, with
// compressed debug sections, DWARF 4 and 5 (fuzz/README.md).
#include <cstdint>
#include <string>
#include <vector>

#include "base/text_buffer.hpp"
#include "fuzz/fuzz_input.hpp"
#include "symbolize/addr2line.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/frame_names.hpp"
#include "symbolize/symbol_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  // A file of its own directory: a .gnu_debuglink is looked for beside it.
  static const std::string path = fuzz::privatePath("module");
  fuzz::writeFile(path, {data, size});
  auto elf = symbolize::ElfFile::open(path);
  if (!elf) return 0;
  (void)elf->inflateDebugSections();
  // Addresses: each segment's first bytes, and its middle.
  std::vector<Svma> pcs;
  for (const symbolize::LoadSegment& s : elf->loadSegments()) {
    for (uint64_t d : {uint64_t{0}, uint64_t{1}, s.file_size / 2, s.mem_size}) {
      pcs.emplace_back(s.vaddr.v + d);
      (void)elf->fileOffsetToSvma(FileOffset{s.offset.v + d});
    }
  }
  {
    symbolize::SymbolTable symbols = symbolize::SymbolTable::read(*elf);
    symbolize::DwarfIndex dwarf(*elf);
    dwarf.prepare(pcs, 1);
    std::vector<symbolize::Frame> scratch;
    std::vector<symbolize::NamedFrame> named;
    for (Svma pc : pcs) {
      (void)symbols.lookup(pc);
      (void)symbols.nearest(pc);
      named.clear();
      symbolize::nameFrames(dwarf, symbols, pc, scratch, named);
      (void)dwarf.startLine(pc);
    }
  }
  // strobe symbolize: the same file through Addr2Line, all options, text and JSON.
  auto engine = symbolize::Addr2Line::open(path);
  if (!engine) return 0;
  std::vector<uint64_t> addrs;
  for (Svma pc : pcs) addrs.push_back(pc.v);
  addrs.push_back(0);
  addrs.push_back(UINT64_MAX);
  TextBuffer out;
  auto flush = [](TextBuffer& b) {
    b.clear();
    return true;
  };
  symbolize::Addr2LineOptions all{true, true, true, true, true};
  (*engine)->answer(addrs, all, false, out, 4096, flush);
  (*engine)->answer(addrs, symbolize::Addr2LineOptions{}, true, out, 4096, flush);
  return 0;
}
