#include "symbolize/symbolizer.hpp"

#include <elf.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "model/code.hpp"
#include "model/module_path.hpp"
#include "model/symbol_names.hpp"
#include "symbolize/debug_file.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/frame_names.hpp"
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
    // Reports name functions by their public aliases (malloc, not
    // __libc_malloc), as perf does.
    symbols = SymbolTable::read(elf, AliasPreference::kPublic);
    if (debug) {
      // .symtab, where the file kept only .dynsym
      SymbolTable full = SymbolTable::read(*debug, AliasPreference::kPublic);
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
};

Symbolizer::Symbolizer(SymbolizerOptions options) : options_(std::move(options)) {}
Symbolizer::~Symbolizer() = default;

std::string_view Symbolizer::buildIdOf(model::ModuleId id) const {
  return id < build_ids_.size() ? std::string_view(build_ids_[id]) : std::string_view();
}

std::string Symbolizer::openModule(const std::string& path, const std::string& recorded,
                                   const std::string& kept,
                                   std::unique_ptr<ModuleSymbols>& out) const {
  auto skip = [&](const std::string& why) { return "cannot symbolize " + path + ": " + why; };
  auto matches = [&](const ElfFile& f) { return recorded.empty() || f.buildId() == recorded; };
  // The path first; the recorder's kept copy when the path is gone, changed
  // or not a file.
  std::string notice;
  Result<ElfFile> file = makeError("not a file", {}, ErrorKind::kNotFound);
  const bool deleted = endsWith(path, " (deleted)");
  if (model::isFileBacked(path) && !deleted) file = ElfFile::open(path);
  if ((!file || !matches(*file)) && !kept.empty()) {
    auto copy = ElfFile::open(kept, path);
    if (copy && matches(*copy)) {
      if (model::isFileBacked(path)) {
        notice = path + (options_.kept_copy_notice.empty()
                             ? std::string(" was deleted or replaced during the run: named from "
                                           "the copy strobe kept open while it ran")
                             : options_.kept_copy_notice);
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
  out = std::make_unique<ModuleSymbols>(std::move(file).value(), options_.debug_roots);
  if (notice.empty()) return out->problem;
  return out->problem.empty() ? notice : notice + "\n" + out->problem;
}

std::string Symbolizer::keptCopy(const std::string& path, const std::string& build_id) const {
  return options_.kept_copy ? options_.kept_copy(path, build_id) : std::string();
}

void Symbolizer::symbolizeKernel(model::Profile& profile, model::Location& loc) {
  if (!kallsyms_tried_) {
    kallsyms_tried_ = true;
    if (auto k = Kallsyms::load(kallsyms_path_); k.ok()) {
      kallsyms_ = std::make_unique<Kallsyms>(std::move(*k));
    } else {
      warnings_.push_back("cannot name kernel frames: " + k.error().describe());
    }
    if (kallsyms_ && (kallsyms_->hidden() || kallsyms_->empty())) {
      int kptr = -1;
      if (std::FILE* f = std::fopen("/proc/sys/kernel/kptr_restrict", "re")) {
        if (std::fscanf(f, "%d", &kptr) != 1) kptr = -1;
        std::fclose(f);
      }
      warnings_.push_back(kptrRestrictHint(kptr));
    }
  }
  if (!kallsyms_) return;
  if (kallsyms_->hidden() || kallsyms_->empty()) {
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

namespace {

// One frame of a resolved location, before it is interned. Views point into
// the module's DwarfIndex / SymbolTable, which outlive the interning.
struct PlainFrame {
  std::string name;
  std::string_view system_name;
  std::string_view file;       // the function's
  std::string_view line_file;  // the line's
  uint32_t line = 0;           // in line_file
  uint32_t decl_line = 0;
};

// Source paths as reports show them: lexically normalized
// ("./csu/../csu/libc-start.c" -> "csu/libc-start.c"), memoized (the views
// point into a module's DwarfIndex, which outlives the interning).
class NormalPaths {
 public:
  const std::string& of(std::string_view path) {
    auto [it, inserted] = paths_.try_emplace(path);
    if (inserted) it->second = model::normalizePath(path);
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, std::string> paths_;
};

}  // namespace

// The locations of one opened-or-to-open module file (one cache slot), and
// what a worker found for them: frames[ends[i-1]..ends[i]) belong to locs[i].
struct Symbolizer::ModuleJob {
  model::ModuleId first_module = 0;  // the module id that opens the file
  std::string path;                  // the module's path
  std::string recorded;              // its build-id as recorded
  std::string kept;                  // the recorder's kept copy of it, "" when none
  std::unique_ptr<ModuleSymbols>* slot = nullptr;
  bool open = false;  // the slot is new: open the file in the worker
  std::vector<model::LocationId> locs;
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> ends;
  std::vector<PlainFrame> frames;
  std::string warning;  // from opening the file
  bool warned = false;
};

void Symbolizer::runJob(ModuleJob& job, unsigned unit_threads) {
  if (job.open) {
    std::unique_ptr<ModuleSymbols> m;
    job.warning = openModule(job.path, job.recorded, job.kept, m);
    *job.slot = std::move(m);
  }
  ModuleSymbols* m = job.slot->get();
  job.ends.assign(job.locs.size(), 0);
  if (m == nullptr) return;
  // Each location's ELF address (none outside the PT_LOAD segments), once.
  std::vector<std::optional<Svma>> at(job.offsets.size());
  std::vector<Svma> pcs;
  pcs.reserve(job.offsets.size());
  for (size_t i = 0; i < job.offsets.size(); ++i) {
    at[i] = m->elf.fileOffsetToSvma(FileOffset(job.offsets[i]));
    if (at[i]) pcs.push_back(*at[i]);
  }
  m->dwarf->prepare(pcs, unit_threads);
  std::vector<Frame> scratch;
  std::vector<NamedFrame> named;
  for (size_t i = 0; i < job.locs.size(); ++i) {
    if (at[i]) {
      named.clear();
      nameFrames(*m->dwarf, m->symbols, *at[i], scratch, named);
      for (NamedFrame& f : named) {
        job.frames.push_back(PlainFrame{std::move(f.name), f.system_name, f.file, f.line_file,
                                        f.raw_line, f.decl_line});
      }
    }
    job.ends[i] = static_cast<uint32_t>(job.frames.size());
  }
}

// The locations of one symbolize() or begin() .. finish(), grouped by
// module file, and what the workers found for them.
struct Symbolizer::Batch {
  size_t location_count = 0;  // the profile's locations at begin(); later ones wait
  std::vector<ModuleJob> jobs;
  std::vector<int32_t> job_of_loc;     // by location: its job, -1 when none
  std::vector<uint32_t> index_in_job;  // by location: its index in the job's locs
};

void Symbolizer::BatchDeleter::operator()(Batch* b) const {
  delete b;
}

Status Symbolizer::symbolize(model::Profile& profile) {
  BatchPtr batch = begin(profile);
  resolve(*batch);
  return finish(profile, *batch);
}

bool Symbolizer::hasWork(const Batch& batch) {
  return !batch.jobs.empty();
}

size_t Symbolizer::forgetUnused(uint64_t batches, size_t max_modules) {
  const size_t before = cache_.size();
  std::vector<std::pair<uint64_t, std::string>> kept;  // (last use, key)
  for (auto it = cache_.begin(); it != cache_.end();) {
    const uint64_t used = last_used_[it->first];
    if (used + batches < batches_) {
      last_used_.erase(it->first);
      it = cache_.erase(it);
    } else {
      kept.emplace_back(used, it->first);
      ++it;
    }
  }
  if (kept.size() > max_modules) {
    std::sort(kept.begin(), kept.end());
    for (size_t i = 0; i < kept.size() - max_modules; ++i) {
      cache_.erase(kept[i].second);
      last_used_.erase(kept[i].second);
    }
  }
  return before - cache_.size();
}

bool Symbolizer::forgetLeastRecentlyUsed() {
  auto oldest = cache_.end();
  uint64_t oldest_use = UINT64_MAX;
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (const uint64_t used = last_used_[it->first]; used < oldest_use) {
      oldest_use = used;
      oldest = it;
    }
  }
  if (oldest == cache_.end()) return false;
  last_used_.erase(oldest->first);
  cache_.erase(oldest);
  return true;
}

void Symbolizer::releaseFilePages() const {
  for (const auto& [key, m] : cache_) {
    if (m == nullptr) continue;
    m->elf.releasePages();
    if (m->debug) m->debug->releasePages();
  }
  if (kallsyms_) kallsyms_->releasePages();
}

Symbolizer::BatchPtr Symbolizer::begin(const model::Profile& profile) {
  warnings_.clear();
  ++batches_;
  BatchPtr batch(new Batch);
  const std::vector<model::Module>& modules = profile.modules();
  build_ids_.assign(modules.size(), std::string());
  for (size_t i = 0; i < modules.size(); ++i) build_ids_[i] = profile.str(modules[i].build_id);

  // Group the file locations by module file.
  std::vector<int32_t> job_of_module(modules.size(), -2);  // -2: not seen, -1: no file
  std::vector<ModuleJob>& jobs = batch->jobs;
  std::unordered_map<std::string, int32_t> job_of_key;
  batch->location_count = profile.locations().size();
  std::vector<int32_t>& job_of_loc = batch->job_of_loc;
  std::vector<uint32_t>& index_in_job = batch->index_in_job;
  job_of_loc.assign(batch->location_count, -1);
  index_in_job.assign(batch->location_count, 0);
  for (size_t li = 0; li < batch->location_count; ++li) {
    const model::Location& loc = profile.locations()[li];
    if (!loc.lines.empty() || loc.module == model::kNone || loc.module >= modules.size()) continue;
    int32_t& j = job_of_module[loc.module];
    if (j == -2) {
      j = -1;
      const std::string& path = profile.str(modules[loc.module].path);
      const std::string& build_id = profile.str(modules[loc.module].build_id);
      std::string kept = path != kKernelModule ? keptCopy(path, build_id) : std::string();
      if (path != kKernelModule && (model::isFileBacked(path) || !kept.empty())) {
        std::string key = path;
        key.push_back('\0');
        key += profile.str(modules[loc.module].build_id);
        auto [kit, fresh_key] = job_of_key.try_emplace(key, static_cast<int32_t>(jobs.size()));
        if (fresh_key) {
          last_used_[key] = batches_;
          auto [cit, inserted] = cache_.try_emplace(std::move(key));
          ModuleJob job;
          job.first_module = loc.module;
          job.path = path;
          job.recorded = build_id;
          job.kept = std::move(kept);
          job.slot = &cit->second;
          job.open = inserted;
          jobs.push_back(std::move(job));
        }
        j = kit->second;
      }
    }
    if (j < 0) continue;
    ModuleJob& job = jobs[j];
    job_of_loc[li] = j;
    index_in_job[li] = static_cast<uint32_t>(job.locs.size());
    job.locs.push_back(static_cast<model::LocationId>(li));
    job.offsets.push_back(loc.offset);
  }

  return batch;
}

void Symbolizer::resolve(Batch& batch) {
  // Open the files and resolve the locations, one module file per worker at
  // a time; nothing here touches the Profile.
  std::vector<ModuleJob>& jobs = batch.jobs;
  // Biggest first, so one large module does not start last.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs[a].locs.size() > jobs[b].locs.size(); });
  size_t cpus = options_.threads != 0 ? options_.threads : std::thread::hardware_concurrency();
  size_t threads = std::max<size_t>(1, std::min(cpus, jobs.size()));
  // Fewer modules than CPUs: the spare CPUs read the units of each module's
  // DWARF in parallel (one big binary is the common case).
  auto unit_threads =
      static_cast<unsigned>(std::max<size_t>(1, cpus / std::max<size_t>(1, jobs.size())));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < order.size();) {
      size_t i = order[k];
      runJob(jobs[i], unit_threads);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

Status Symbolizer::finish(model::Profile& profile, Batch& batch) {
  // Intern in location order, as a serial run would.
  const std::vector<model::Module>& modules = profile.modules();
  for (size_t i = build_ids_.size(); i < modules.size(); ++i) {
    build_ids_.push_back(profile.str(modules[i].build_id));
  }
  std::vector<ModuleJob>& jobs = batch.jobs;
  const std::vector<int32_t>& job_of_loc = batch.job_of_loc;
  const std::vector<uint32_t>& index_in_job = batch.index_in_job;
  size_t bad_modules = 0;
  // JIT and anonymous code first: it may move frames to new locations.
  jit_frames_.apply(profile);
  std::vector<model::Location>& locations = profile.mutableLocations();
  NormalPaths paths;
  for (size_t li = 0; li < batch.location_count && li < locations.size(); ++li) {
    model::Location& loc = locations[li];
    if (!loc.lines.empty()) continue;
    if (loc.module != model::kNone && loc.module >= modules.size()) {
      ++bad_modules;
      continue;
    }
    if (loc.module != model::kNone && profile.str(modules[loc.module].path) == kKernelModule) {
      symbolizeKernel(profile, loc);
      continue;
    }
    // Not a file ("//anon", memfd, ...) and no copy of one: named by jit_frames_ or not at all.
    if (job_of_loc[li] < 0) continue;
    ModuleJob& job = jobs[job_of_loc[li]];
    ModuleSymbols* m = job.slot->get();
    if (!job.warned) {
      job.warned = true;
      // One line each: opening a kept copy adds a notice before any problem.
      for (size_t at = 0; at < job.warning.size();) {
        size_t nl = job.warning.find('\n', at);
        if (nl == std::string::npos) nl = job.warning.size();
        warnings_.push_back(job.warning.substr(at, nl - at));
        at = nl + 1;
      }
    }
    if (m == nullptr) continue;
    if (build_ids_[loc.module].empty()) build_ids_[loc.module] = m->elf.buildId();
    uint32_t i = index_in_job[li];
    for (uint32_t f = i == 0 ? 0 : job.ends[i - 1]; f < job.ends[i]; ++f) {
      const PlainFrame& pf = job.frames[f];
      const std::string& file = paths.of(pf.file);
      model::FunctionId fid = profile.internFunction(pf.name, pf.system_name, file, pf.decl_line);
      // A function whose inline chain names it as its own caller at one
      // address (ld.so's call_init, libc's tcache_init and arena_get2 from
      // Debian's debug files: a split-off part of a function described as
      // inlined into it) is one frame, so no output reads it as recursion.
      if (f > (i == 0 ? 0 : job.ends[i - 1]) && !loc.lines.empty() &&
          loc.lines.back().function == fid) {
        continue;
      }
      // Line::file only when the line lies in another file than the
      // function's own (an inlined header, a macro from elsewhere).
      const std::string& line_file = paths.of(pf.line_file);
      loc.lines.push_back(model::Line{
          fid, pf.line, line_file == file ? model::kEmptyString : profile.internString(line_file)});
    }
  }

  if (bad_modules > 0) {
    return makeError(
        std::to_string(bad_modules) + " locations refer to modules the profile does not have", {},
        ErrorKind::kCorrupt);
  }
  return {};
}

}  // namespace strobe::symbolize

namespace strobe::symbolize {
namespace {

// The architecture names of model::FunctionCode::arch.
std::string_view archOfMachine(uint16_t machine) {
  if (machine == EM_X86_64) return "x86_64";
  if (machine == EM_AARCH64) return "aarch64";
  return "";
}

}  // namespace

uint64_t Symbolizer::keepCode(model::Profile& profile) {
  const std::vector<model::Location>& locations = profile.locations();
  const std::vector<model::Module>& modules = profile.modules();
  const std::vector<model::LeafWeight> leaves = model::leafWeights(profile);
  std::set<std::pair<model::ModuleId, uint64_t>> kept;  // (module, offset) already in the profile
  uint64_t budget = model::kMaxCodeBytes;
  for (const model::FunctionCode& c : profile.code()) {
    kept.emplace(c.module, c.offset);
    budget -= std::min(budget, static_cast<uint64_t>(c.bytes.size()));
  }

  // The functions holding self samples, by (module, start), with their weight.
  struct Candidate {
    model::FunctionCode code;
    ModuleSymbols* file = nullptr;  // nullptr: a kernel range, no bytes
    uint64_t weight = 0;
    uint64_t hottest = 0;  // the weight of the location that names the function
  };
  std::map<std::pair<model::ModuleId, uint64_t>, Candidate> found;
  std::vector<ModuleSymbols*> file_of(modules.size(), nullptr);
  std::vector<bool> looked(modules.size(), false);
  for (size_t li = 0; li < locations.size(); ++li) {
    const model::Location& loc = locations[li];
    if (leaves[li].weight == 0 || loc.module == model::kNone || loc.module >= modules.size()) {
      continue;
    }
    const std::string& path = profile.str(modules[loc.module].path);
    model::FunctionCode c;
    c.module = loc.module;
    ModuleSymbols* m = nullptr;
    if (path == kKernelModule) {
      if (!kallsyms_ || kallsyms_->hidden()) continue;
      auto r = kallsyms_->range(loc.address);
      if (!r || r->end - r->start > model::kMaxFunctionCodeBytes) continue;
      c.offset = c.address = r->start;
      c.size = r->end - r->start;
    } else {
      if (!looked[loc.module]) {
        looked[loc.module] = true;
        auto it = cache_.find(path + '\0' + profile.str(modules[loc.module].build_id));
        if (it != cache_.end()) file_of[loc.module] = it->second.get();
      }
      m = file_of[loc.module];
      if (m == nullptr) continue;
      auto pc = m->elf.fileOffsetToSvma(FileOffset(loc.offset));
      auto sym = pc ? m->symbols.lookup(*pc) : std::nullopt;
      if (!sym || sym->end.v <= sym->start.v) continue;
      auto at = m->elf.svmaToFileOffset(sym->start, sym->end.v - sym->start.v);
      if (!at) continue;
      c.offset = at->v;
      c.address = sym->start.v;
      c.size = sym->end.v - sym->start.v;
      c.arch = std::string(archOfMachine(m->elf.machine()));
    }
    if (kept.count({c.module, c.offset}) != 0) continue;
    auto [it, fresh] = found.try_emplace({c.module, c.offset});
    Candidate& cand = it->second;
    if (fresh) {
      cand.code = std::move(c);
      cand.file = m;
    }
    cand.weight += leaves[li].weight;
    if (!loc.lines.empty() && leaves[li].weight > cand.hottest) {
      cand.hottest = leaves[li].weight;
      cand.code.function = loc.lines.back().function;
    }
  }

  // Hottest first, so that the bounds leave out the coolest functions.
  std::vector<Candidate*> order;
  for (auto& [key, cand] : found) order.push_back(&cand);
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate* a, const Candidate* b) { return a->weight > b->weight; });
  uint64_t kept_bytes = 0;
  for (Candidate* cand : order) {
    model::FunctionCode& c = cand->code;
    ModuleSymbols* m = cand->file;
    if (m != nullptr && c.size <= model::kMaxFunctionCodeBytes && c.size <= budget) {
      if (auto bytes = m->elf.readBytes(FileOffset(c.offset), c.size)) {
        c.bytes = std::move(*bytes);
        c.checksum = model::codeChecksum(c.bytes);
        budget -= c.size;
        kept_bytes += c.size;
      }
    }
    // The line rows are for annotate, which needs the bytes too.
    if (!c.bytes.empty()) {
      const Svma lo(c.address);
      const Svma hi(c.address + c.size);
      for (const DwarfIndex::LineRange& row : m->dwarf->lineRows(lo, hi)) {
        c.lines.push_back(model::CodeLine{static_cast<uint32_t>(row.address - c.address),
                                          profile.internString(row.file), row.line});
      }
    }
    profile.addCode(std::move(c));
  }
  return kept_bytes;
}

}  // namespace strobe::symbolize
