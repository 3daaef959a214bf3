// Symbolizer: fills in the functions and source lines of a Profile's
// locations from the files of its modules.
//
// For each Location with a module and no lines yet, the module's file is
// opened by path (once per path and build-id, then cached), the location's
// file offset is turned into an ELF address (SVMA) through the PT_LOAD
// segments, and the symbol table and DWARF give the location's lines: one
// per inline level, innermost first, the last one the real function (see
// frame_names.hpp for how frames are named). A file without .debug_info is
// completed by its separate debug file (build-id or .gnu_debuglink, see
// debug_file.hpp). The offset is looked up as given: caller frames already
// hold return address − 1.
// Locations outside any file mapping (no module, "//anon", memfd, ...) are
// named from the profile's own JIT table (JIT code: one frame named by the
// runtime, with its line when it gave lines; see jit_frames.hpp, which also
// moves such frames to "[JIT]" locations by sample time), or as the region
// of anonymous memory they lie in. Locations that cannot be resolved keep
// empty lines. Modules that are not files ("[vdso]", "[stack]",
// "//anon", memfd, ...) are otherwise skipped quietly; a file
// that cannot be opened or parsed, or whose build-id differs from the one
// recorded, is skipped with one warning and remembered, so it is not retried.
// Kernel frames (module "[kernel.kallsyms]") are named from /proc/kallsyms.
//
// Owns: the cache of opened modules (an fd, a read-only mapping, symbols and
// DWARF state each) for its lifetime; it reads files, nothing else.
// Modules are opened and resolved on up to `threads` threads at once (one
// module file, with its own libelf/libdw handles, per thread at a time); the
// results are interned into the Profile on the calling thread in location
// order, so the Profile is the same as with one thread.
// symbolize() may be called again on a growing Profile (live views): only
// new, unsymbolized locations are looked up. It is begin(), resolve() and
// finish() in a row; a live view runs resolve() on a thread of its own, so
// that reading debug information never holds up the thread that drains the
// rings and grows the Profile.
// Thread safety: none; one thread calls a Symbolizer at a time, except that
// resolve() of one batch may run on another thread between begin() and
// finish() (no other call meanwhile but hasWork()).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"
#include "symbolize/jit_frames.hpp"
#include "symbolize/kallsyms.hpp"

namespace strobe::symbolize {

struct SymbolizerOptions {
  // Where separate debug files are looked for (see debug_file.hpp).
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  // A copy of a module's file kept by the recorder (see
  // record/kept_files.hpp): a path to open when the module's own path no
  // longer gives the recorded file (deleted or replaced during the run) or
  // is not a file at all ([vdso]); "" when there is none. Unset: no copies.
  std::function<std::string(const std::string& path, const std::string& build_id)> kept_copy;
  // What follows a module's path in the notice that a kept copy named it;
  // "": the recorder's words (deleted or replaced during the run).
  std::string kept_copy_notice;
  // Threads that open and resolve modules at once; 0: one per CPU.
  unsigned threads = 0;
};

class Symbolizer {
 public:
  explicit Symbolizer(SymbolizerOptions options = {});
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  ~Symbolizer();

  // Symbolizes the unsymbolized locations of `profile`. Fails (kCorrupt) only
  // when locations name modules the profile does not have; every other
  // location is still processed. Per-module problems become warnings().
  Status symbolize(model::Profile& profile);

  // The same in three steps. begin() reads the profile: the unsymbolized
  // locations it has now, grouped by module file. resolve() opens the files
  // and looks the locations up, touching no Profile (any one thread).
  // finish() interns the results into the profile, which may have grown
  // since begin(): later locations are left for the next batch. One batch at
  // a time. warnings() are those of the last finish().
  struct Batch;
  struct BatchDeleter {
    void operator()(Batch* b) const;
  };
  using BatchPtr = std::unique_ptr<Batch, BatchDeleter>;
  BatchPtr begin(const model::Profile& profile);
  void resolve(Batch& batch);
  Status finish(model::Profile& profile, Batch& batch);
  // Whether resolve() has files to read (else it returns at once).
  [[nodiscard]] static bool hasWork(const Batch& batch);

  // Keeps in the profile the code of the functions that hold its self
  // samples (model/code.hpp says which and how much): each one's range by
  // its symbol, its bytes read from the module file (or the recorder's kept
  // copy) and its line-table rows; for kernel frames the range alone, from
  // /proc/kallsyms. Uses the files symbolize() opened, so call it after
  // symbolize(); ranges already in the profile are not added again.
  // Returns the bytes kept.
  uint64_t keepCode(model::Profile& profile);

  // Warnings of the last symbolize() call, one line each (a module that could
  // not be used is reported once per Symbolizer).
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

  // The build-id of module `id` of the last profile symbolized: the one the
  // profile recorded, or else the one read from the file (when the module had
  // locations to symbolize and its file could be opened); "" when unknown.
  [[nodiscard]] std::string_view buildIdOf(model::ModuleId id) const;

  // Lets go of the module files no batch used among the last `batches`
  // (their mapping, symbols and debug information), and then of the least
  // recently used ones beyond `max_modules`; a module needed again is
  // opened again. Not while a batch is between begin() and finish().
  // Returns how many were let go. For long runs (strobe agent).
  size_t forgetUnused(uint64_t batches, size_t max_modules);
  // Lets go of the least recently used module file; false when none is held.
  bool forgetLeastRecentlyUsed();
  // Lets the pages of the module files read so far, and of a mapped kallsyms
  // file, go from the process's memory (ElfFile::releasePages,
  // Kallsyms::releasePages); they are read in again when used.
  void releaseFilePages() const;
  // Module files held (opened, or remembered as unusable).
  [[nodiscard]] size_t cachedModules() const { return cache_.size(); }

  // Where kernel symbols are read from (default /proc/kallsyms; tests).
  void setKallsymsPath(std::string path) { kallsyms_path_ = std::move(path); }

 private:
  struct ModuleSymbols;
  struct ModuleJob;
  // Opens the file of a module (or the recorder's kept copy of it) into
  // `out`; returns warnings, one per line ("" when none; `out` stays empty
  // when the file cannot be used). Any thread.
  std::string openModule(const std::string& path, const std::string& recorded,
                         const std::string& kept, std::unique_ptr<ModuleSymbols>& out) const;
  // Opens (if new) and resolves one module file's locations. Any thread; a
  // job's module is used by one thread only.
  void runJob(ModuleJob& job, unsigned unit_threads);
  // options_.kept_copy's answer, "" without one. Called by begin() only.
  std::string keptCopy(const std::string& path, const std::string& build_id) const;
  // Kernel frames (module "[kernel.kallsyms]", offset == address): named
  // from /proc/kallsyms, or "[kernel]" with one warning when it hides addresses.
  void symbolizeKernel(model::Profile& profile, model::Location& loc);

  JitFrames jit_frames_;
  std::unique_ptr<Kallsyms> kallsyms_;  // loaded on the first kernel frame
  bool kallsyms_tried_ = false;
  std::string kallsyms_path_ = "/proc/kallsyms";

  // Keyed by path + '\0' + recorded build-id; nullptr: skipped (remembered).
  std::unordered_map<std::string, std::unique_ptr<ModuleSymbols>> cache_;
  std::unordered_map<std::string, uint64_t>
      last_used_;                       // by cache key: the batch that last used it
  uint64_t batches_ = 0;                // begun so far
  std::vector<std::string> build_ids_;  // by ModuleId of the last profile
  std::vector<std::string> warnings_;
  SymbolizerOptions options_;
};

}  // namespace strobe::symbolize
