#include "cpython/interpreter.hpp"

#include <fmt/format.h>
#include <gelf.h>

#include <array>
#include <cstring>
#include <optional>

#include "cpython/remote_memory.hpp"
#include "symbolize/debug_file.hpp"
#include "symbolize/elf_file.hpp"

namespace strobe::cpython {
namespace {

struct Symbol {
  uint64_t value = 0;  // SVMA
  uint64_t size = 0;
  bool found = false;
};

enum SymbolIndex : size_t {
  kRuntime,
  kVersion,
  kCodeType,
  kEval,
  kEvalCold,
  kTrampolineStart,
  kTrampolineEnd,
  kSymbolCount,
};
constexpr std::array<const char*, kSymbolCount> kSymbolNames = {"_PyRuntime",
                                                                "Py_Version",
                                                                "PyCode_Type",
                                                                "_PyEval_EvalFrameDefault",
                                                                "_PyEval_EvalFrameDefault.cold",
                                                                "_Py_trampoline_func_start",
                                                                "_Py_trampoline_func_end"};
// A perf trampoline template is a handful of instructions.
constexpr uint64_t kMaxTrampolineBytes = 64;

// Fills the defined symbols of `elf`'s .symtab and .dynsym among kSymbolNames.
void readSymbols(const symbolize::ElfFile& file, std::array<Symbol, kSymbolCount>& out) {
  Elf* elf = file.elf();
  for (Elf_Scn* scn = ::elf_nextscn(elf, nullptr); scn != nullptr; scn = ::elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = ::elf_getdata(scn, nullptr);
    const size_t entsize = ::gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (data == nullptr || entsize == 0) continue;
    const size_t count = data->d_size / entsize;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (::gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const char* name = ::elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name == nullptr || (name[0] != '_' && name[0] != 'P')) continue;
      for (size_t k = 0; k < kSymbolCount; ++k) {
        if (!out[k].found && std::strcmp(name, kSymbolNames[k]) == 0) {
          out[k] = Symbol{sym.st_value, sym.st_size, true};
        }
      }
    }
  }
}

bool hasSymtab(const symbolize::ElfFile& file) {
  for (Elf_Scn* scn = ::elf_nextscn(file.elf(), nullptr); scn != nullptr;
       scn = ::elf_nextscn(file.elf(), scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) != nullptr && sh.sh_type == SHT_SYMTAB) return true;
  }
  return false;
}

// The difference between a symbol's SVMA and its AVMA in the process, from
// one mapping of the file.
std::optional<uint64_t> loadBias(const symbolize::ElfFile& file, uint64_t map_start,
                                 uint64_t map_pgoff) {
  for (const symbolize::LoadSegment& s : file.loadSegments()) {
    const uint64_t off = s.offset.v, vaddr = s.vaddr.v;
    const uint64_t page_off = off & ~uint64_t{0xfff};
    if (map_pgoff < page_off || map_pgoff >= off + std::max<uint64_t>(s.file_size, 1)) continue;
    // The mapping starts at file offset map_pgoff: vaddr - off is page-aligned.
    return map_start - map_pgoff - (vaddr - off);
  }
  return std::nullopt;
}

// The bytes of a symbol's initial value in the file.
Result<std::vector<uint8_t>> symbolBytes(const symbolize::ElfFile& file, const Symbol& sym,
                                         uint64_t size) {
  auto off = file.svmaToFileOffset(Svma{sym.value}, size);
  if (!off) return makeError("a symbol's value is not in the file", "", ErrorKind::kCorrupt);
  return file.readBytes(*off, size);
}

std::string_view lastComponent(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool isInterpreterPath(std::string_view path) {
  std::string_view name = lastComponent(path);
  if (name.substr(0, 3) == "lib") {
    name.remove_prefix(3);
    if (name.find(".so") == std::string_view::npos) return false;
  }
  return name.size() > 8 && name.substr(0, 7) == "python3" && name[7] == '.';
}

Result<Interpreter> probeInterpreter(pid_t pid, const std::string& path, uint64_t map_start,
                                     uint64_t map_pgoff, const RemoteMemory* memory) {
  auto file = symbolize::ElfFile::open(path);
  if (!file) return file.takeError();
  std::array<Symbol, kSymbolCount> syms{};
  readSymbols(*file, syms);
  if (!syms[kRuntime].found) {
    return makeError(fmt::format("{} defines no _PyRuntime", path), "", ErrorKind::kNotFound);
  }
  if (!syms[kVersion].found) {
    // Py_Version is 3.11's: an older interpreter, named by its file.
    std::string_view name = lastComponent(path);
    const size_t at = name.find("python");
    std::string_view version = at == std::string_view::npos ? "" : name.substr(at + 6);
    version = version.substr(0, version.find_first_not_of("0123456789."));
    if (version.ends_with('.')) version.remove_suffix(1);
    return makeError(fmt::format("Python {} is not one strobe reads frames of (3.11, 3.12, 3.13)",
                                 version.empty() ? "older than 3.11" : version),
                     "", ErrorKind::kUnsupported);
  }
  // A stripped file: its separate debug file may name the eval loop's
  // split-off part.
  if (!syms[kEvalCold].found && !hasSymtab(*file)) {
    if (auto debug = symbolize::findDebugFile(*file, {"/usr/lib/debug"})) {
      if (auto dfile = symbolize::ElfFile::open(*debug); dfile) {
        std::array<Symbol, kSymbolCount> more{};
        readSymbols(*dfile, more);
        syms[kEvalCold] = more[kEvalCold];
      }
    }
  }
  auto version_bytes = symbolBytes(*file, syms[kVersion], 4);
  if (!version_bytes) return version_bytes.takeError();
  uint32_t version = 0;
  std::memcpy(&version, version_bytes->data(), sizeof version);
  auto table = tableLayout(version);
  if (!table) return table.takeError();
  const auto bias = loadBias(*file, map_start, map_pgoff);
  if (!bias) {
    return makeError(fmt::format("{}: no segment of the file holds offset {:#x}", path, map_pgoff),
                     "", ErrorKind::kCorrupt);
  }

  Interpreter in;
  in.pid = pid;
  in.path = path;
  in.runtime = syms[kRuntime].value + *bias;
  in.code_type = syms[kCodeType].found ? syms[kCodeType].value + *bias : 0;
  for (size_t k : {kEval, kEvalCold}) {
    if (syms[k].found && syms[k].size > 0) {
      in.eval_ranges.push_back(
          AddressRange{syms[k].value + *bias, syms[k].value + *bias + syms[k].size});
    }
  }
  const Symbol& ts = syms[kTrampolineStart];
  const Symbol& te = syms[kTrampolineEnd];
  if (ts.found && te.found && te.value > ts.value && te.value - ts.value <= kMaxTrampolineBytes) {
    if (auto bytes = symbolBytes(*file, ts, te.value - ts.value)) {
      in.trampoline = std::move(*bytes);
    }
  }
  in.layout = *table;
  in.layout_source = "table";
  if (table->minor() < 13) return in;

  // 3.13+: the interpreter states its own offsets.
  std::vector<uint8_t> debug(kDebugOffsetsSize);
  if (memory == nullptr || !memory->read(in.runtime, debug.data(), debug.size())) {
    auto from_file = symbolBytes(*file, syms[kRuntime], kDebugOffsetsSize);
    if (!from_file) return from_file.takeError();
    debug = std::move(*from_file);
  }
  auto stated = debugOffsetsLayout(debug.data(), debug.size());
  if (!stated) return stated.takeError();
  stated->version_hex = version;
  in.layout_note = layoutDifference(*stated, *table);
  in.layout = *stated;
  in.layout_source = "_Py_DebugOffsets";
  return in;
}

Result<Interpreter> findInterpreter(pid_t pid, const std::vector<MappedFile>& mappings,
                                    const RemoteMemory* memory) {
  std::string tried;
  for (const MappedFile& m : mappings) {
    if (!isInterpreterPath(m.path) || m.path == tried) continue;
    tried = m.path;
    auto in = probeInterpreter(pid, m.path, m.start, m.pgoff, memory);
    if (in || in.error().kind != ErrorKind::kNotFound) return in;
  }
  return makeError(fmt::format("process {} runs no CPython interpreter strobe can see", pid), "",
                   ErrorKind::kNotFound);
}

}  // namespace strobe::cpython
