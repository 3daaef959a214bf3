#include "output/pprof_writer.hpp"

#include <protozero/pbf_writer.hpp>

#include <algorithm>
#include <cerrno>
#include <unordered_map>

#include "model/aggregate.hpp"
#include "model/frames.hpp"
#include "model/measure.hpp"
#include "model/symbol_names.hpp"
#include "output/gzip_sink.hpp"
#include "output/pprof_fields.hpp"
#include "output/unsampled_threads.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

// Encodes top-level messages into a buffer and deflates it in chunks.
class Encoder {
 public:
  explicit Encoder(std::FILE* out) : sink_(out) {}
  std::string& buffer() { return buf_; }
  bool maybeFlush() {
    if (buf_.size() < (1 << 16)) return ok_;
    return flush();
  }
  bool flush() {
    ok_ = sink_.write(buf_) && ok_;
    buf_.clear();
    return ok_;
  }
  bool finish() { return flush() && sink_.finish(); }

 private:
  GzipSink sink_;
  std::string buf_;
  bool ok_ = true;
};

// Strings beyond the model's own (the model's string ids are used as they
// are: its id 0 is "", as pprof requires).
class ExtraStrings {
 public:
  explicit ExtraStrings(const model::Profile& p) : base_(p.strings().size()) {}
  int64_t id(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<int64_t>(base_ + list_.size()));
    if (inserted) list_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  size_t base_;
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string> list_;
};

struct ModuleRange {
  uint64_t start = UINT64_MAX;
  uint64_t limit = 0;
  uint64_t file_offset = 0;
  bool symbolized = false;
  bool inlines = false;
};

}  // namespace

Status writePprof(const model::Profile& p, const PprofOptions& opt, std::FILE* out) {
  Encoder enc(out);
  ExtraStrings extra(p);
  const model::Meta& m = p.meta();

  auto valueType = [&](pb::Profile field, const std::string& type, const std::string& unit) {
    protozero::pbf_writer w(enc.buffer());
    protozero::pbf_writer vt(w, field);
    vt.add_int64(pb::kType, extra.id(type));
    vt.add_int64(pb::kUnit, extra.id(unit));
  };
  // Sample types from the data (model/measure.hpp): a recording with
  // off-CPU time has cpu, off-cpu and wall (their sum), so that
  // -sample_index switches between them; others have their own kind's.
  const model::Measure measure = model::measureOf(p);
  const bool off_cpu =
      m.off_cpu != 0 || std::any_of(p.samples().begin(), p.samples().end(), [](const auto& s) {
        return s.kind == model::SampleKind::kOffCpu;
      });
  const model::Measure primary =
      model::measureOf(off_cpu ? model::View::kCpu : measure.view, m.event);
  valueType(pb::kSampleType, "samples", "count");
  valueType(pb::kSampleType, primary.type, primary.unit);
  if (off_cpu) {
    valueType(pb::kSampleType, "off-cpu", "nanoseconds");
    valueType(pb::kSampleType, "wall", "nanoseconds");
  }
  valueType(pb::kPeriodType, primary.type, primary.unit);

  // One pprof sample per distinct (stack, thread).
  struct Sum {
    int64_t samples = 0;
    int64_t weight = 0;   // the primary kind's
    int64_t off_cpu = 0;  // off-CPU ns
  };
  std::unordered_map<uint64_t, Sum> sums;
  std::vector<uint64_t> order;  // first-seen order, so output is deterministic
  for (const model::Sample& s : p.samples()) {
    uint64_t key = (static_cast<uint64_t>(s.stack) << 32) | static_cast<uint32_t>(s.tid);
    auto [it, inserted] = sums.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.samples += 1;
    // pprof values are int64: a weight or a sum beyond it (which the
    // recording reader refuses) saturates instead of overflowing.
    const int64_t w =
        s.weight > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(s.weight);
    int64_t& sum = s.kind == model::SampleKind::kOffCpu ? it->second.off_cpu : it->second.weight;
    if (__builtin_add_overflow(sum, w, &sum)) {
      sum = INT64_MAX;
    }
  }

  const int64_t k_thread = extra.id("thread");
  const int64_t k_tid = extra.id("tid");
  const int64_t k_role = extra.id("role");
  std::unordered_map<int32_t, int64_t> thread_names;
  std::unordered_map<int32_t, int64_t> thread_roles;  // 0: none
  const int64_t k_pid = opt.process_labels ? extra.id("pid") : 0;
  const int64_t k_comm = opt.process_labels ? extra.id("comm") : 0;
  std::unordered_map<int32_t, std::pair<int32_t, int64_t>> processes;  // tid -> pid, comm
  std::vector<std::pair<int64_t, int64_t>> fixed_labels;
  for (const auto& [k, v] : opt.labels) fixed_labels.emplace_back(extra.id(k), extra.id(v));
  std::vector<uint64_t> loc_ids;
  std::vector<bool> used_loc(p.locations().size(), false);
  // Locations written without their innermost `skip` lines (below), with
  // ids after the profile's own: (location, skip) -> id.
  std::vector<std::pair<model::LocationId, uint32_t>> trimmed;
  std::unordered_map<uint64_t, uint64_t> trimmed_ids;
  auto trimmedId = [&](model::LocationId lid, uint32_t skip) {
    const uint64_t key = (static_cast<uint64_t>(lid) << 32) | skip;
    auto [it, inserted] = trimmed_ids.try_emplace(key, p.locations().size() + trimmed.size() + 1);
    if (inserted) trimmed.emplace_back(lid, skip);
    return it->second;
  };
  for (uint64_t key : order) {
    auto stack = static_cast<model::StackId>(key >> 32);
    auto tid = static_cast<int32_t>(static_cast<uint32_t>(key));
    const Sum& sum = sums[key];
    loc_ids.clear();
    model::FunctionId callee = model::kNone;
    p.forEachFrame(stack, [&](model::LocationId lid) {
      const std::vector<model::Line>& lines = p.locations()[lid].lines;
      // A function calling its own clone (foo -> foo.part.0) is one frame
      // (model/frames.hpp): the caller's location, when it holds only that
      // function, is left out of the stack, so pprof sees no recursion.
      const bool one = lines.size() == 1 || (opt.no_inline && !lines.empty());
      if (one && model::isCloneCall(p, callee, lines.back().function)) return;
      // When only its innermost inline lines are that function (malloc
      // with tcache_init's head inlined, calling tcache_init.part.0), the
      // caller is the same location without those lines.
      uint32_t skip = 0;
      while (!one && skip + 1 < lines.size() &&
             model::isCloneCall(p, callee, lines[skip].function)) {
        ++skip;
      }
      if (skip != 0) {
        loc_ids.push_back(trimmedId(lid, skip));
      } else {
        loc_ids.push_back(lid + 1ULL);
        used_loc[lid] = true;
      }
      callee = lines.empty() ? model::kNone : lines.back().function;
    });
    auto [tn, inserted] = thread_names.try_emplace(tid, 0);
    if (inserted) {
      const model::Thread* t = p.findThread(tid);
      tn->second = extra.id(t != nullptr && !t->name.empty() ? t->name : std::to_string(tid));
      thread_roles[tid] = t != nullptr && !t->role.empty() ? extra.id(t->role) : 0;
      if (opt.process_labels) {
        const int32_t pid = t != nullptr && t->pid != 0 ? t->pid : tid;
        const model::Thread* main_thread = p.findThread(pid);
        const std::string& comm = main_thread != nullptr && !main_thread->name.empty()
                                      ? main_thread->name
                                      : (t != nullptr ? t->name : std::string());
        processes[tid] = {pid, comm.empty() ? 0 : extra.id(comm)};
      }
    }
    {
      protozero::pbf_writer w(enc.buffer());
      protozero::pbf_writer s(w, pb::kSample);
      s.add_packed_uint64(pb::kLocationId, loc_ids.begin(), loc_ids.end());
      int64_t wall = 0;
      if (__builtin_add_overflow(sum.weight, sum.off_cpu, &wall)) wall = INT64_MAX;
      int64_t values[4] = {sum.samples, sum.weight, sum.off_cpu, wall};
      s.add_packed_int64(pb::kValue, values, values + (off_cpu ? 4 : 2));
      {
        protozero::pbf_writer l(s, pb::kLabel);
        l.add_int64(pb::kKey, k_thread);
        l.add_int64(pb::kStr, tn->second);
      }
      {
        protozero::pbf_writer l(s, pb::kLabel);
        l.add_int64(pb::kKey, k_tid);
        l.add_int64(pb::kNum, tid);
      }
      if (int64_t role = thread_roles[tid]; role != 0) {
        protozero::pbf_writer l(s, pb::kLabel);
        l.add_int64(pb::kKey, k_role);
        l.add_int64(pb::kStr, role);
      }
      if (opt.process_labels) {
        const auto& [pid, comm] = processes[tid];
        {
          protozero::pbf_writer l(s, pb::kLabel);
          l.add_int64(pb::kKey, k_pid);
          l.add_int64(pb::kNum, pid);
        }
        if (comm != 0) {
          protozero::pbf_writer l(s, pb::kLabel);
          l.add_int64(pb::kKey, k_comm);
          l.add_int64(pb::kStr, comm);
        }
      }
      for (const auto& [k, v] : fixed_labels) {
        protozero::pbf_writer l(s, pb::kLabel);
        l.add_int64(pb::kKey, k);
        l.add_int64(pb::kStr, v);
      }
    }
    if (!enc.maybeFlush()) break;
  }

  // Locations, and the address range each module was seen at. Lines name
  // pprof functions: one per function identity (a clone is the function it
  // came from), and one more for each other file its lines lie in (an
  // inlined header), since a pprof line has no file of its own.
  std::vector<ModuleRange> ranges(p.modules().size());
  struct PprofFunction {
    model::FunctionId identity;
    model::StringId file;
  };
  std::vector<PprofFunction> pprof_functions;
  std::unordered_map<uint64_t, uint64_t> pprof_function_ids;  // (identity, file) -> id
  auto pprofFunction = [&](const model::Line& line) -> uint64_t {
    const model::FunctionId identity = p.identity(line.function);
    const model::StringId file = model::lineFile(p, line);
    const uint64_t key = (static_cast<uint64_t>(identity) << 32) | file;
    auto [it, inserted] = pprof_function_ids.try_emplace(key, pprof_functions.size() + 1);
    if (inserted) pprof_functions.push_back(PprofFunction{identity, file});
    return it->second;
  };
  // Location `id`: the profile's location `lid` without its innermost
  // `skip` lines.
  auto writeLocation = [&](uint64_t id, model::LocationId lid, uint32_t skip) {
    const model::Location& loc = p.locations()[lid];
    if (loc.module != model::kNone) {
      ModuleRange& r = ranges[loc.module];
      if (loc.address < r.start) {
        r.start = loc.address;
        r.file_offset = loc.offset;
      }
      r.limit = std::max(r.limit, loc.address + 1);
      r.symbolized = r.symbolized || !loc.lines.empty();
      r.inlines = r.inlines || loc.lines.size() > 1;
    }
    {
      protozero::pbf_writer w(enc.buffer());
      protozero::pbf_writer l(w, pb::kLocation);
      l.add_uint64(pb::kLocId, id);
      if (loc.module != model::kNone) l.add_uint64(pb::kMappingId, loc.module + 1ULL);
      l.add_uint64(pb::kAddress, loc.address);
      auto first = loc.lines.begin() + std::min<size_t>(skip, loc.lines.size());
      if (opt.no_inline && !loc.lines.empty()) first = loc.lines.end() - 1;
      for (auto it = first; it != loc.lines.end(); ++it) {
        if (it->function >= p.functions().size()) continue;
        protozero::pbf_writer ln(l, pb::kLine);
        ln.add_uint64(pb::kFunctionId, pprofFunction(*it));
        ln.add_int64(pb::kLineNo, it->line);
      }
    }
    return enc.maybeFlush();
  };
  for (size_t i = 0; i < p.locations().size(); ++i) {
    if (used_loc[i] && !writeLocation(i + 1, static_cast<model::LocationId>(i), 0)) break;
  }
  for (size_t k = 0; k < trimmed.size(); ++k) {
    if (!writeLocation(p.locations().size() + k + 1, trimmed[k].first, trimmed[k].second)) break;
  }

  for (size_t i = 0; i < p.modules().size(); ++i) {
    const model::Module& mod = p.modules()[i];
    const ModuleRange& r = ranges[i];
    if (opt.used_mappings_only && r.limit == 0) continue;
    protozero::pbf_writer w(enc.buffer());
    protozero::pbf_writer mp(w, pb::kMapping);
    mp.add_uint64(pb::kId, i + 1);
    if (r.limit > 0) {
      mp.add_uint64(pb::kMemoryStart, r.start);
      mp.add_uint64(pb::kMemoryLimit, r.limit);
      mp.add_uint64(pb::kFileOffset, r.file_offset);
    }
    mp.add_int64(pb::kFilename, mod.path);
    mp.add_int64(pb::kBuildId, mod.build_id);
    // Symbolized modules say so, or pprof would try to symbolize them again.
    mp.add_bool(pb::kHasFunctions, r.symbolized);
    mp.add_bool(pb::kHasFilenames, r.symbolized);
    mp.add_bool(pb::kHasLineNumbers, r.symbolized);
    mp.add_bool(pb::kHasInlineFrames, r.symbolized);
  }

  for (size_t i = 0; i < pprof_functions.size(); ++i) {
    const model::Function& f = p.functions()[pprof_functions[i].identity];
    const model::StringId file = pprof_functions[i].file;
    const std::string& system_name = p.str(f.system_name);
    {
      protozero::pbf_writer w(enc.buffer());
      protozero::pbf_writer fn(w, pb::kFunction);
      fn.add_uint64(pb::kFnId, i + 1);
      fn.add_int64(pb::kName, f.name);
      // pprof "simplifies" a name equal to its system name that looks like
      // demangled C++ by cutting out what is between < and >: Python's
      // "<module>" or "<lambda>" would be left with nothing. A system name
      // that is not there tells pprof the name is final.
      const bool pprof_would_cut = f.name == f.system_name && system_name.starts_with('<');
      fn.add_int64(pb::kSystemName, pprof_would_cut ? int64_t{0}
                                    : model::isClone(system_name)
                                        ? extra.id(std::string(model::cloneBase(system_name)))
                                        : int64_t{f.system_name});
      fn.add_int64(pb::kFnFilename, file);
      fn.add_int64(pb::kStartLine, file == f.file ? f.start_line : 0);
    }
    if (!enc.maybeFlush()) break;
  }

  {
    protozero::pbf_writer w(enc.buffer());
    if (m.start_realtime_ns != 0)
      w.add_int64(pb::kTimeNanos, static_cast<int64_t>(m.start_realtime_ns));
    w.add_int64(pb::kDurationNanos, static_cast<int64_t>(m.duration_ns));
    // The nominal period: 1/frequency, or the mean weight when sampling by period.
    int64_t period = 0;
    if (m.frequency != 0 && primary.time()) {
      period = 1'000'000'000LL / m.frequency;
    } else if (m.sample_period != 0) {
      period = static_cast<int64_t>(m.sample_period);
    } else if (!p.samples().empty()) {
      uint64_t sum = 0;
      for (const model::Sample& s : p.samples()) sum += s.weight;
      period = static_cast<int64_t>(sum / p.samples().size());
    }
    w.add_int64(pb::kPeriod, period);
    std::string comment = "strobe";
    if (!m.strobe_version.empty()) comment += " " + m.strobe_version;
    w.add_int64(pb::kComment, extra.id(comment));
    // What the header of strobe's own reports says of the target's CPU
    // (pprof -comments shows these).
    if (m.target_cpu_ns != 0 && model::kindOfEvent(m.event) == model::SampleKind::kCpu) {
      w.add_int64(pb::kComment, extra.id("CPU sampled: " + sampledCpuText(p)));
    }
    if (std::string k = kernelTimeLine(m); !k.empty()) w.add_int64(pb::kComment, extra.id(k));
    w.add_int64(pb::kDefaultSampleType, extra.id(off_cpu ? measure.type : primary.type));
  }
  // The string table last: every id above is assigned by now.
  // proto3 strings must be valid UTF-8.
  std::string scratch;
  for (const std::string& s : p.strings()) {
    protozero::pbf_writer w(enc.buffer());
    std::string_view v = validUtf8(s, scratch);
    w.add_string(pb::kStringTable, v.data(), v.size());
    if (!enc.maybeFlush()) break;
  }
  for (const std::string& s : extra.list()) {
    protozero::pbf_writer w(enc.buffer());
    std::string_view v = validUtf8(s, scratch);
    w.add_string(pb::kStringTable, v.data(), v.size());
    if (!enc.maybeFlush()) break;
  }
  if (!enc.finish()) {
    return systemError("cannot write the pprof profile", "check the output path and free space");
  }
  return {};
}

}  // namespace strobe::output
