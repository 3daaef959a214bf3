#include "record/engine.hpp"

#include <array>

#include "record/bpf_engine.hpp"

namespace strobe::record {
namespace {

// kAuto's order of preference (docs/BENCHMARKS.md, "Capture engines").
std::array<const EngineInfo*, 2> autoOrder() {
  return {&bpfEngineInfo(), &perfEngineInfo()};
}

}  // namespace

const char* engineName(EngineKind k) {
  switch (k) {
    case EngineKind::kPerf:
      return "perf";
    case EngineKind::kBpf:
      return "bpf";
    case EngineKind::kAuto:
      break;
  }
  return "auto";
}

Result<const EngineInfo*> chooseEngine(const RecordOptions& opt, std::string& note) {
  note.clear();
  if (opt.engine != EngineKind::kAuto) {
    for (const EngineInfo* e : autoOrder()) {
      if (e->kind != opt.engine) continue;
      if (auto st = e->check(opt); !st) return st.takeError();
      return e;
    }
    return makeError(std::string("the ") + engineName(opt.engine) +
                         " engine is not part of this build of strobe",
                     "use --engine perf", ErrorKind::kUnsupported);
  }
  const auto order = autoOrder();
  for (size_t i = 0; i < order.size(); ++i) {
    Status st = order[i]->check(opt);
    if (st) return order[i];
    if (i + 1 == order.size()) return st.takeError();
    if (note.empty()) {
      note = std::string("the ") + order[i]->name + " engine cannot record here (" +
             st.error().message + "): using the " + order[i + 1]->name + " engine";
    }
  }
  return makeError("no capture engine can record here", "use --engine perf");
}

Result<std::unique_ptr<CaptureEngine>> makeEngine(const RecordOptions& opt, EngineKind& chosen,
                                                  std::vector<std::string>& notes) {
  std::string note;
  auto info = chooseEngine(opt, note);
  if (!info) return info.takeError();
  if (!note.empty()) notes.push_back(note);
  chosen = (*info)->kind;
  return (*info)->make(opt);
}

}  // namespace strobe::record
