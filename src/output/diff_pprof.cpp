// strobe diff as a pprof profile: one sample per node of the merged call
// tree (model/diff_tree.hpp) whose self changed, its value the new side's
// self minus the base's (mean per run, in the diff's unit), its stack the
// node's frames; one location per inline chain (the frames inlined into
// their caller, then that caller: lines leaf first, as report's pprof and
// profile.proto have them, so that pprof marks the inlined ones
// "(inline)" alike in both) and one function per function identity (no
// addresses: the two sides' differ; an unresolved frame is a location in
// its module's mapping, which pprof names [module], as it does report's
// unresolved locations). What `pprof -top` shows
// of it is what `pprof -diff_base BASE NEW` shows of the two runs' own
// profiles: flat = the change of self, cum = the change of total.
#include <protozero/pbf_writer.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "output/diff_writers.hpp"
#include "output/gzip_sink.hpp"
#include "output/page_data.hpp"
#include "output/pprof_fields.hpp"
#include "output/utf8.hpp"

namespace strobe::output {

Status writeDiffPprof(const model::ProfileDiff& d, const model::DiffTree& t, std::FILE* out) {
  std::string buf;
  StringIds strings;
  protozero::pbf_writer w(buf);
  {
    protozero::pbf_writer vt(w, pb::kSampleType);
    vt.add_int64(pb::kType, strings.intern(d.measure.type));
    vt.add_int64(pb::kUnit, strings.intern(d.measure.unit));
  }
  // Locations: each inline chain (frame ids, leaf first) once, numbered
  // from 1 in the order met.
  std::map<std::vector<uint32_t>, uint64_t> chains;
  std::vector<const std::vector<uint32_t>*> chain_of;  // by location id - 1
  std::vector<uint32_t> chain;
  std::vector<uint64_t> locs;
  for (size_t id = 1; id < t.nodes.size(); ++id) {
    const model::DiffNode& n = t.nodes[id];
    const auto value = static_cast<int64_t>(std::llround(n.next_self - n.base_self));
    if (value == 0) continue;
    locs.clear();
    chain.clear();
    for (uint32_t x = static_cast<uint32_t>(id); x != 0 && x != model::kNone;
         x = t.nodes[x].parent) {
      const uint32_t frame = t.nodes[x].frame;
      chain.push_back(frame);
      const uint32_t parent = t.nodes[x].parent;
      // The chain goes on into the caller while this frame was inlined
      // into it (never past the root).
      if (t.frames[frame].inlined && parent != 0 && parent != model::kNone) continue;
      auto [it, added] = chains.try_emplace(chain, chains.size() + 1);
      if (added) chain_of.push_back(&it->first);
      locs.push_back(it->second);
      chain.clear();
    }
    protozero::pbf_writer s(w, pb::kSample);
    s.add_packed_uint64(pb::kLocationId, locs.begin(), locs.end());
    const int64_t values[1] = {value};
    s.add_packed_int64(pb::kValue, values, values + 1);
  }
  // One function per function identity (inlined frames share theirs).
  std::vector<const model::DiffFrame*> functions;
  for (const model::DiffFrame& f : t.frames) {
    if (f.unresolved) continue;
    if (f.function >= functions.size()) functions.resize(f.function + 1, nullptr);
    if (functions[f.function] == nullptr) functions[f.function] = &f;
  }
  // One mapping per module, saying it is symbolized (or pprof would shorten
  // the names); unresolved frames are locations in it without lines, as
  // report's pprof writes them (pprof names them [module]).
  std::unordered_map<std::string, uint64_t> mappings;
  for (size_t i = 0; i < chain_of.size(); ++i) {
    const std::vector<uint32_t>& frames = *chain_of[i];
    const model::DiffFrame& outer = t.frames[frames.back()];
    protozero::pbf_writer l(w, pb::kLocation);
    l.add_uint64(pb::kLocId, i + 1);
    l.add_uint64(pb::kMappingId,
                 mappings.try_emplace(outer.module, mappings.size() + 1).first->second);
    for (const uint32_t frame : frames) {
      const model::DiffFrame& f = t.frames[frame];
      if (f.unresolved) continue;
      protozero::pbf_writer ln(l, pb::kLine);
      ln.add_uint64(pb::kFunctionId, f.function + 1ULL);
      ln.add_int64(pb::kLineNo, f.line);
    }
  }
  std::vector<std::pair<uint64_t, std::string>> by_id;
  for (const auto& [module, id] : mappings) by_id.emplace_back(id, module);
  std::sort(by_id.begin(), by_id.end());
  for (const auto& [id, module] : by_id) {
    protozero::pbf_writer mp(w, pb::kMapping);
    mp.add_uint64(pb::kId, id);
    mp.add_int64(pb::kFilename, strings.intern(module));
    mp.add_bool(pb::kHasFunctions, true);
    mp.add_bool(pb::kHasFilenames, true);
    mp.add_bool(pb::kHasLineNumbers, true);
    mp.add_bool(pb::kHasInlineFrames, true);
  }
  std::string scratch;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (functions[i] == nullptr) continue;
    const model::DiffFrame& f = *functions[i];
    protozero::pbf_writer fn(w, pb::kFunction);
    fn.add_uint64(pb::kFnId, i + 1);
    // The symbol name apart from the name, as report's pprof has it (pprof
    // would demangle, and shorten, a name that is its own symbol).
    const int64_t name = strings.intern(std::string(validUtf8(f.name, scratch)));
    fn.add_int64(pb::kName, name);
    fn.add_int64(pb::kSystemName, strings.intern(std::string(validUtf8(f.system_name, scratch))));
    fn.add_int64(pb::kFnFilename, strings.intern(std::string(validUtf8(f.file, scratch))));
    fn.add_int64(pb::kStartLine, f.line);
  }
  {
    protozero::pbf_writer vt(w, pb::kPeriodType);
    vt.add_int64(pb::kType, strings.intern(d.measure.type));
    vt.add_int64(pb::kUnit, strings.intern(d.measure.unit));
  }
  std::string base, next;
  for (const std::string& n : d.base.names) base += (base.empty() ? "" : ", ") + n;
  for (const std::string& n : d.next.names) next += (next.empty() ? "" : ", ") + n;
  w.add_int64(pb::kComment, strings.intern("strobe diff: new minus base"));
  w.add_int64(pb::kComment, strings.intern(std::string(validUtf8("base: " + base, scratch))));
  w.add_int64(pb::kComment, strings.intern(std::string(validUtf8("new: " + next, scratch))));
  w.add_int64(pb::kComment, strings.intern("compared: " + comparedText(d)));
  for (const std::string& s : strings.list()) w.add_string(pb::kStringTable, s);
  GzipSink sink(out);
  if (!sink.write(buf) || !sink.finish()) {
    return systemError("cannot write the pprof profile", "check the output path and free space");
  }
  return {};
}

}  // namespace strobe::output
