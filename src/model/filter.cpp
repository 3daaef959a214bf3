#include "model/filter.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace strobe::model {

bool keepSample(const Profile& p, const SampleFilter& f, const Sample& s) {
  if (f.since_ns && s.time_ns < *f.since_ns) return false;
  if (f.until_ns && s.time_ns >= *f.until_ns) return false;
  if (!f.tids.empty() && std::find(f.tids.begin(), f.tids.end(), s.tid) == f.tids.end()) {
    return false;
  }
  if (!f.threads.empty()) {
    const Thread* t = p.findThread(s.tid);
    const char* name = t != nullptr ? t->name.c_str() : "";
    bool any = false;
    for (const std::string& glob : f.threads) {
      if (fnmatch(glob.c_str(), name, 0) == 0) {
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
  std::vector<Sample>& samples = out.mutableSamples();
  samples.clear();
  for (const Sample& s : p.samples()) {
    if (keepSample(p, f, s)) samples.push_back(s);
  }
  return out;
}

Result<uint64_t> parseDuration(std::string_view text) {
  auto bad = [&] {
    return makeError("invalid duration '" + std::string(text) + "'",
                     "write a number with a unit: 500ms, 1.5s, 2m, 100us, 10ns", ErrorKind::kUsage);
  };
  std::string s(text);
  if (s.empty()) return bad();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return bad();
  std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1e9;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "ns") {
    scale = 1;
  } else if (unit == "m" || unit == "min") {
    scale = 60e9;
  } else if (unit == "h") {
    scale = 3600e9;
  } else {
    return bad();
  }
  double ns = v * scale;
  if (ns > 1.8e19) return bad();
  return static_cast<uint64_t>(std::llround(ns));
}

}  // namespace strobe::model
