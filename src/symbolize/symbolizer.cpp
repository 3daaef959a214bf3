#include "symbolize/symbolizer.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "model/module_path.hpp"
#include "symbolize/debug_file.hpp"
#include "symbolize/demangle.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/frame_names.hpp"
#include "symbolize/perf_map.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {
namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

struct Symbolizer::ModuleSymbols {
  ModuleSymbols(ElfFile f, const std::vector<std::string>& debug_roots) : elf(std::move(f)) {
    // Stripped files: the debug information may be in a separate file.
    if (!hasSection(elf, ".debug_info")) {
      if (auto path = findDebugFile(elf, debug_roots)) {
        if (auto d = ElfFile::open(*path)) debug = std::make_unique<ElfFile>(std::move(d).value());
      }
    }
    // Before any view of the file is built: views borrow the Elf handle.
    ElfFile& dwarf_file = debug ? *debug : elf;
    if (auto st = dwarf_file.inflateDebugSections(); !st) {
      problem = st.error().describe() + ": names only, no lines";
    }
    symbols = SymbolTable::read(elf);
    if (debug) {
      SymbolTable full = SymbolTable::read(*debug);  // .symtab, where the file kept only .dynsym
      if (full.size() > symbols.size()) symbols = std::move(full);
    }
    dwarf = std::make_unique<DwarfIndex>(dwarf_file);
  }

  std::string problem;  // a warning to give once, "" when none

  // Declared in this order so that dwarf and symbols go before the files.
  ElfFile elf;
  std::unique_ptr<ElfFile> debug;  // the separate debug file, when used
  SymbolTable symbols;
  std::unique_ptr<DwarfIndex> dwarf;
  std::vector<Frame> frames;      // scratch
  std::vector<NamedFrame> named;  // scratch

  // The lines of the location at `pc`, innermost first.
  void resolve(model::Profile& p, Svma pc, std::vector<model::Line>& out) {
    named.clear();
    nameFrames(*dwarf, symbols, pc, frames, named);
    for (const NamedFrame& f : named) {
      model::FunctionId fid = p.internFunction(f.name, f.system_name, f.file, f.decl_line);
      out.push_back(model::Line{fid, f.line});
    }
  }
};

Symbolizer::Symbolizer(SymbolizerOptions options) : options_(std::move(options)) {}
Symbolizer::~Symbolizer() = default;

std::string_view Symbolizer::buildIdOf(model::ModuleId id) const {
  return id < build_ids_.size() ? std::string_view(build_ids_[id]) : std::string_view();
}

Symbolizer::ModuleSymbols* Symbolizer::moduleFor(const model::Profile& profile,
                                                 model::ModuleId id) {
  const model::Module& mod = profile.modules()[id];
  const std::string& path = profile.str(mod.path);
  const std::string& recorded = profile.str(mod.build_id);
  std::string key = path;
  key.push_back('\0');
  key += recorded;
  auto [it, inserted] = cache_.try_emplace(std::move(key));
  if (!inserted) return it->second.get();
  std::string kept = options_.kept_copy ? options_.kept_copy(path, recorded) : std::string();
  if (!model::isFileBacked(path) && kept.empty()) return nullptr;

  auto skip = [&](const std::string& why) -> ModuleSymbols* {
    warnings_.push_back("cannot symbolize " + path + ": " + why);
    return nullptr;
  };
  auto matches = [&](const ElfFile& f) { return recorded.empty() || f.buildId() == recorded; };
  // The path first; the recorder's kept copy when the path is gone, changed
  // or not a file.
  Result<ElfFile> file = makeError("not a file", {}, ErrorKind::kNotFound);
  const bool deleted = endsWith(path, " (deleted)");
  if (model::isFileBacked(path) && !deleted) file = ElfFile::open(path);
  if ((!file || !matches(*file)) && !kept.empty()) {
    auto copy = ElfFile::open(kept, path);
    if (copy && matches(*copy)) {
      if (model::isFileBacked(path)) {
        warnings_.push_back(path +
                            " was deleted or replaced during the run: named from the copy "
                            "strobe kept open while it ran");
      }
      file = std::move(copy);
    }
  }
  if (!file && deleted) return skip("the file was deleted or replaced during the run");
  if (!file) return skip(file.error().describe());
  if (!matches(*file)) {
    return skip("the file has changed since it was recorded (build-id " +
                (file->buildId().empty() ? std::string("none") : file->buildId()) + ", recorded " +
                recorded + ")");
  }
  it->second = std::make_unique<ModuleSymbols>(std::move(file).value(), options_.debug_roots);
  if (!it->second->problem.empty()) {
    warnings_.push_back(it->second->problem);
  }
  return it->second.get();
}

std::vector<PerfMap> Symbolizer::loadPerfMaps(const model::Profile& profile) const {
  std::vector<int32_t> pids;
  if (profile.meta().pid > 0) pids.push_back(profile.meta().pid);
  for (const model::Thread& t : profile.threads()) {
    if (t.pid > 0) pids.push_back(t.pid);
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  std::vector<PerfMap> maps;
  for (int32_t pid : pids) {
    auto m = PerfMap::load(options_.perf_map_dir + "/perf-" + std::to_string(pid) + ".map");
    if (m && m->size() > 0) maps.push_back(std::move(m).value());
  }
  return maps;
}

void Symbolizer::symbolizeKernel(model::Profile& profile, model::Location& loc) {
  if (!kallsyms_tried_) {
    kallsyms_tried_ = true;
    if (auto k = Kallsyms::load(kallsyms_path_); k.ok()) {
      kallsyms_ = std::make_unique<Kallsyms>(std::move(*k));
    } else {
      warnings_.push_back("cannot name kernel frames: " + k.error().describe());
    }
    if (kallsyms_ && (kallsyms_->hidden() || kallsyms_->size() == 0)) {
      int kptr = -1;
      if (std::FILE* f = std::fopen("/proc/sys/kernel/kptr_restrict", "re")) {
        if (std::fscanf(f, "%d", &kptr) != 1) kptr = -1;
        std::fclose(f);
      }
      warnings_.push_back(kptrRestrictHint(kptr));
    }
  }
  if (!kallsyms_) return;
  if (kallsyms_->hidden() || kallsyms_->size() == 0) {
    model::FunctionId fid =
        profile.internFunction(kHiddenKernelName, kHiddenKernelName, std::string_view(), 0);
    loc.lines.push_back(model::Line{fid, 0});
    return;
  }
  std::optional<std::string_view> name = kallsyms_->lookup(loc.address);
  if (!name) return;
  model::FunctionId fid = profile.internFunction(*name, *name, std::string_view(), 0);
  loc.lines.push_back(model::Line{fid, 0});
}

Status Symbolizer::symbolize(model::Profile& profile) {
  warnings_.clear();
  const std::vector<model::Module>& modules = profile.modules();
  build_ids_.assign(modules.size(), std::string());
  for (size_t i = 0; i < modules.size(); ++i) build_ids_[i] = profile.str(modules[i].build_id);

  // Per call, resolve each module id once.
  std::vector<ModuleSymbols*> resolved(modules.size(), nullptr);
  std::vector<bool> looked_up(modules.size(), false);
  size_t bad_modules = 0;

  // JIT code: anonymous executable memory named by /tmp/perf-PID.map.
  std::vector<PerfMap> jit_maps;
  bool jit_loaded = false;
  auto jitName = [&](uint64_t address) -> std::optional<std::string_view> {
    if (!jit_loaded) {
      jit_loaded = true;
      jit_maps = loadPerfMaps(profile);
    }
    for (const PerfMap& m : jit_maps) {
      if (auto name = m.lookup(address)) return name;
    }
    return std::nullopt;
  };

  for (model::Location& loc : profile.mutableLocations()) {
    if (!loc.lines.empty()) continue;
    if (loc.module != model::kNone && loc.module >= modules.size()) {
      ++bad_modules;
      continue;
    }
    if (loc.module != model::kNone && profile.str(modules[loc.module].path) == kKernelModule) {
      symbolizeKernel(profile, loc);
      continue;
    }
    ModuleSymbols* m = nullptr;
    if (loc.module != model::kNone) {
      ModuleSymbols*& slot = resolved[loc.module];
      if (!looked_up[loc.module]) {
        looked_up[loc.module] = true;
        slot = moduleFor(profile, loc.module);
        if (slot != nullptr && build_ids_[loc.module].empty()) {
          build_ids_[loc.module] = slot->elf.buildId();
        }
      }
      m = slot;
    }
    // Not a file ("//anon", memfd, ...) and no copy of one: JIT code, maybe.
    if (m == nullptr && (loc.module == model::kNone ||
                         !model::isFileBacked(profile.str(modules[loc.module].path)))) {
      if (auto name = jitName(loc.address)) {
        model::FunctionId fid = profile.internFunction(demangle(*name), *name, "", 0);
        loc.lines.push_back(model::Line{fid, 0});
      }
      continue;
    }
    if (m == nullptr) continue;

    std::optional<Svma> pc = m->elf.fileOffsetToSvma(FileOffset(loc.offset));
    if (!pc) continue;
    m->resolve(profile, *pc, loc.lines);
  }

  if (bad_modules > 0) {
    return makeError(
        std::to_string(bad_modules) + " locations refer to modules the profile does not have", {},
        ErrorKind::kCorrupt);
  }
  return {};
}

}  // namespace strobe::symbolize
