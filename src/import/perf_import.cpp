#include "import/perf_import.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <variant>

#include "base/hex.hpp"
#include "base/keep_until_exit.hpp"
#include "import/kernel_symbols.hpp"
#include "import/module_files.hpp"
#include "import/perf_meta.hpp"
#include "perf/records.hpp"
#include "symbolize/jit_files.hpp"
#include "symbolize/kallsyms.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::import {
namespace {

constexpr uint32_t kKernelPid = UINT32_MAX;  // MMAPs of the kernel and its modules

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The event `wanted` names: perf's name, perf's name without its
// modifiers ("cycles" for "cycles:u"), or strobe's name for it.
std::optional<size_t> findEvent(const perfdata::EventList& events, const std::string& wanted) {
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string name = events.displayName(i);
    if (name == wanted || name.substr(0, name.find(':')) == wanted ||
        strobeEventName(events, i) == wanted) {
      return i;
    }
  }
  return std::nullopt;
}

// Turns the reader's records into a Profile through one Converter.
class Importer {
 public:
  Importer(perfdata::Reader& reader, const ImportOptions& options, model::Profile& profile)
      : reader_(reader), options_(options), profile_(profile), files_(options.build_id_dir) {}

  Result<ImportOutcome> run();

 private:
  // Chooses the event and sets the converter up, at the first record (a
  // pipe's events are known only then).
  Status setUp();
  void onRecord(const perfdata::RecordView& v);
  void onMmap(const perf::Mmap2Record& m, const perf_event_header& h);
  void finishMeta(ImportOutcome& out);
  void symbolize(ImportOutcome& out);
  [[nodiscard]] std::string buildIdOf(const perf::Mmap2Record& m);

  perfdata::Reader& reader_;
  const ImportOptions& options_;
  model::Profile& profile_;
  ModuleFiles files_;
  std::unique_ptr<record::Converter> converter_;
  std::optional<Status> set_up_;  // how setUp() went, once it ran
  size_t event_ = 0;
  bool kernel_named_ = false;
  RecordedKernel kernel_;
  std::unordered_map<std::string, std::string> build_ids_;  // path -> build-id
  uint64_t malformed_ = 0;
  std::string first_malformed_;
  uint64_t first_time_ = UINT64_MAX;  // of the chosen event's samples
  uint64_t last_time_ = 0;
};

Status Importer::setUp() {
  const perfdata::EventList& events = reader_.events();
  if (events.empty()) {
    return makeError(reader_.name() + " holds no events", "is it a perf stat recording?",
                     ErrorKind::kCorrupt);
  }
  std::vector<std::string> names;
  std::optional<size_t> chosen;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events.isDummy(i)) continue;
    names.push_back(events.displayName(i));
    if (!chosen) chosen = i;
  }
  if (!options_.event.empty()) {
    chosen = findEvent(events, options_.event);
    if (!chosen) {
      return makeError("no event '" + options_.event + "' in " + reader_.name(),
                       "its events: " + joined(names), ErrorKind::kUsage);
    }
  }
  event_ = chosen.value_or(0);
  const perf_event_attr& attr = events.events()[event_].attr;
  fillMeta(reader_.features(), events, event_, profile_.meta());

  for (const perfdata::BuildIdEntry& b : reader_.features().build_ids) {
    if (b.kernel && b.path == symbolize::kKernelModule) kernel_.build_id = b.build_id;
    if (!b.kernel) build_ids_.try_emplace(b.path, b.build_id);
  }
  kernel_.release = reader_.features().os_release;
  // Kernel frames are kept where they can be named; else a sample in the
  // kernel gets one [kernel] frame (the note says why).
  kernel_named_ = attr.exclude_kernel == 0 && attr.exclude_callchain_kernel == 0 &&
                  !kernelSymbols(kernel_, files_).path.empty();

  converter_ = std::make_unique<record::Converter>(profile_, 0);
  converter_->setKernelFrames(kernel_named_);
  converter_->setFileLocator([this](const std::string& path, const std::string& build_id) {
    return files_.locate(path, build_id);
  });
  const bool dwarf = (attr.sample_type & PERF_SAMPLE_REGS_USER) != 0 &&
                     (attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
  if (dwarf) {
    converter_->enableUnwinding(unwind::UnwindMode::kDwarf);
  } else if ((attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0) {
    converter_->enableFramePointerCheck();
  }
  return {};
}

std::string Importer::buildIdOf(const perf::Mmap2Record& m) {
  if (m.build_id_size > 0) return hexString(m.build_id, m.build_id_size);
  auto it = build_ids_.find(std::string(m.filename));
  return it != build_ids_.end() ? it->second : std::string();
}

void Importer::onMmap(const perf::Mmap2Record& m, const perf_event_header& h) {
  if (m.pid == kKernelPid) {
    // "[kernel.kallsyms]_text": the kernel image, pgoff the address of _text.
    constexpr std::string_view kKernel = symbolize::kKernelModule;
    if (m.filename.substr(0, kKernel.size()) == kKernel && m.filename.size() > kKernel.size()) {
      kernel_.text = m.pgoff;
      kernel_.text_symbol = std::string(m.filename.substr(kKernel.size()));
      // perf record --buildid-mmap: the kernel's build-id comes with it.
      if (kernel_.build_id.empty()) kernel_.build_id = buildIdOf(m);
    }
    return;  // kernel frames are named by address (kallsyms)
  }
  // Data mappings (perf record -d, --call-graph dwarf) hold no code.
  const bool data = h.type == PERF_RECORD_MMAP2 ? (m.prot & PROT_EXEC) == 0
                                                : (h.misc & PERF_RECORD_MISC_MMAP_DATA) != 0;
  if (data) return;
  converter_->addMapping(static_cast<int32_t>(m.pid), m.addr, m.addr + m.len, m.pgoff,
                         std::string(m.filename), buildIdOf(m));
}

void Importer::onRecord(const perfdata::RecordView& v) {
  if (!set_up_) set_up_ = setUp();
  if (!*set_up_) return;
  const perfdata::Event& e = reader_.events().events()[v.event];
  const auto* h = reinterpret_cast<const perf_event_header*>(v.bytes);
  const bool sample = h->type == PERF_RECORD_SAMPLE;
  if (sample && v.event != event_) return;  // another event's view
  const uint64_t sample_type = sample || e.attr.sample_id_all != 0 ? e.attr.sample_type : 0;
  auto rec = perf::decodeRecord(h, v.bytes, v.size, sample_type, e.attr.sample_regs_user);
  if (!rec) {
    if (malformed_++ == 0) first_malformed_ = rec.error().message;
    return;
  }
  if (const auto* m = std::get_if<perf::Mmap2Record>(&*rec)) {
    onMmap(*m, *h);
    return;
  }
  if (sample) {
    const uint64_t t = std::get<perf::SampleRecord>(*rec).time;
    first_time_ = std::min(first_time_, t);
    last_time_ = std::max(last_time_, t);
  }
  converter_->apply(*rec);
}

void Importer::finishMeta(ImportOutcome& out) {
  model::Meta& m = profile_.meta();
  const perfdata::Features& f = reader_.features();
  const record::ConverterStats& s = converter_->stats();
  uint64_t first = first_time_ != UINT64_MAX ? first_time_ : 0;
  // Sample times count from the first sample (as perf report's do).
  for (model::Sample& sample : profile_.mutableSamples()) sample.time_ns -= first;
  m.start_monotonic_ns = first;
  m.duration_ns = last_time_ > first ? last_time_ - first : 0;
  m.start_realtime_ns = startRealtime(f, first, m.duration_ns, reader_.modifiedNs());
  m.lost_samples = s.lost;
  m.throttle_events = s.throttled;
  m.throttled_ns = s.throttled_ns;
  m.throttle_weighted_ns = s.throttle_weighted_ns;
  m.unsampled_threads = s.unsampled_threads;
  // The first process: the command's (its first thread), or the -p target's.
  if (!profile_.threads().empty()) m.pid = profile_.threads().front().pid;
  if (m.target.rfind("pid ", 0) == 0) {
    const int32_t pid = std::atoi(m.target.c_str() + 4);
    m.pid = pid;
    if (const model::Thread* t = profile_.findThread(pid); t != nullptr) m.command = {t->name};
  }
  out.stats = s;
}

void Importer::symbolize(ImportOutcome& out) {
  // JIT code: the runtimes' files, when they are still there.
  symbolize::JitFiles jit(options_.perf_map_dir);
  for (const auto& marker : converter_->takeJitdumpMarkers()) {
    jit.followJitdump(marker.pid, marker.path);
  }
  // Perf maps carry no times: what they name holds for the whole recording.
  const uint64_t start = profile_.meta().start_monotonic_ns;
  jit.finish(profile_, start > 0 ? start - 1 : 0);
  for (std::string& w : jit.takeWarnings()) out.warnings.push_back(std::move(w));

  symbolize::SymbolizerOptions so;
  so.kept_copy = [this](const std::string& path, const std::string& build_id) {
    return files_.locate(path, build_id);
  };
  so.kept_copy_notice = " is not on this machine as recorded: named from perf's build-id cache (" +
                        files_.dir() + ")";
  auto owned = std::make_unique<symbolize::Symbolizer>(std::move(so));
  symbolize::Symbolizer& symbolizer = *owned;
  KernelSymbols ks;
  if (kernel_named_) {
    ks = kernelSymbols(kernel_, files_);
    symbolizer.setKallsymsPath(ks.path);
  } else if (profile_.meta().kernel_time != 0) {
    ks = kernelSymbols(kernel_, files_);
    if (!ks.note.empty()) {
      out.warnings.push_back(ks.note + "; time in the kernel shows as [kernel]");
    }
  }
  if (auto st = symbolizer.symbolize(profile_); !st) out.warnings.push_back(st.error().describe());
  // A file that is neither where it was recorded nor in the build-id cache
  // is said so, in place of the symbolizer's "cannot open".
  std::vector<std::string> missing;
  for (const ModuleFiles::Missing& m : files_.missing()) {
    missing.push_back("cannot symbolize " + m.path);
    std::string why = m.changed ? "the file there has changed since it was recorded"
                                : "it is not on this machine";
    out.warnings.push_back(
        missing.back() + (m.build_id.empty() ? "" : " (build-id " + m.build_id + ")") + ": " + why +
        ", and perf's build-id cache" +
        (files_.dir().empty() ? std::string() : " (" + files_.dir() + ")") +
        (m.build_id.empty() ? " cannot be searched without its build-id" : " has no copy of it") +
        ": its frames are unnamed (module+offset)");
  }
  for (const std::string& w : symbolizer.warnings()) {
    const bool said = std::any_of(missing.begin(), missing.end(), [&](const std::string& m) {
      return w.compare(0, m.size() + 1, m + ":") == 0;
    });
    if (!said) out.warnings.push_back(w);
  }
  if (options_.keep_code) symbolizer.keepCode(profile_);
  // Names are interned: the files' and kallsyms' pages can go before the
  // report builds its rows (the symbolizer is kept until exit, unused).
  symbolizer.releaseFilePages();
  if (options_.keep_until_exit) keepUntilExit(std::move(owned));
}

Result<ImportOutcome> Importer::run() {
  ImportOutcome out;
  reader_.read([this](const perfdata::RecordView& v) { onRecord(v); });
  if (!set_up_) set_up_ = setUp();  // a recording without records
  if (!*set_up_) return set_up_->takeError();
  out.warnings = reader_.warnings();
  out.cut_short = reader_.cutShort();
  out.read = reader_.stats();
  for (size_t i = 0; i < reader_.events().size(); ++i) {
    if (!reader_.events().isDummy(i)) out.events.push_back(reader_.events().displayName(i));
  }
  out.event = reader_.events().displayName(event_);
  out.malformed = malformed_;
  if (malformed_ > 0) {
    out.warnings.push_back(reader_.name() + ": " + std::to_string(malformed_) + " record" +
                           (malformed_ == 1 ? " did" : "s did") +
                           " not decode and were left out; the first: " + first_malformed_);
  }
  converter_->finish(last_time_);
  // Every stack is unwound: the unwinders' file pages are not needed while
  // the files are read again to be symbolized.
  converter_->releaseUnwindPages();
  finishMeta(out);
  if (options_.symbolize) symbolize(out);
  return out;
}

}  // namespace

Result<ImportOutcome> importPerfData(const std::string& path, const ImportOptions& options,
                                     model::Profile& out) {
  auto reader = perfdata::Reader::open(path);
  if (!reader) return reader.takeError();
  return importPerfData(**reader, options, out);
}

Result<ImportOutcome> importPerfData(perfdata::Reader& reader, const ImportOptions& options,
                                     model::Profile& out) {
  ImportOptions opt = options;
  if (opt.build_id_dir.empty()) opt.build_id_dir = defaultBuildIdDir();
  Importer importer(reader, opt, out);
  return importer.run();
}

}  // namespace strobe::import
