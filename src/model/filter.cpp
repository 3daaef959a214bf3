#include "model/filter.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "model/measure.hpp"

namespace strobe::model {

bool keepSample(const Profile& p, const SampleFilter& f, const Sample& s) {
  if (f.view != View::kAuto && !inView(f.view, s.kind)) return false;
  if (f.since_ns && s.time_ns < *f.since_ns) return false;
  if (f.until_ns && s.time_ns >= *f.until_ns) return false;
  if (!f.tids.empty() && std::find(f.tids.begin(), f.tids.end(), s.tid) == f.tids.end()) {
    return false;
  }
  if (!f.threads.empty()) {
    const Thread* t = p.findThread(s.tid);
    const char* name = t != nullptr ? t->name.c_str() : "";
    const char* role = t != nullptr ? t->role.c_str() : "";
    bool any = false;
    for (const std::string& glob : f.threads) {
      if (fnmatch(glob.c_str(), name, 0) == 0 ||
          (*role != '\0' && fnmatch(glob.c_str(), role, 0) == 0)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

Profile filterSamples(const Profile& p, const SampleFilter& f) {
  Profile out = p;
  if (f.empty()) return out;
  if (f.view != View::kAuto) out.setView(f.view);
  std::vector<Sample>& samples = out.mutableSamples();
  samples.clear();
  std::optional<SpanWindows> windows;
  if (f.span) windows.emplace(p, selectSpans(p, *f.span));
  for (const Sample& s : p.samples()) {
    if (keepSample(p, f, s) && (!windows || windows->contains(s.tid, s.time_ns))) {
      samples.push_back(s);
    }
  }
  return out;
}

}  // namespace strobe::model
