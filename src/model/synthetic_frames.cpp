#include "model/synthetic_frames.hpp"

#include <cstdint>

namespace strobe::model {
namespace {

// The missing-caller frame's address: no user or kernel address, and not a
// perf context marker either (those are never stored as frames).
constexpr uint64_t kMissingCallerAddress = UINT64_MAX;

LocationId namedLocation(Profile& p, ModuleId module, uint64_t offset, std::string_view name) {
  const LocationId id = p.internLocation(module, offset, offset);
  Location& loc = p.mutableLocations()[id];
  if (loc.lines.empty()) {
    loc.lines.push_back(Line{p.internFunction(name, name, std::string_view(), 0), 0});
  }
  return id;
}

}  // namespace

LocationId kernelTimeLocation(Profile& p) {
  return namedLocation(p, p.internModule(kKernelTimeModule, ""), 0, kKernelFrameName);
}

LocationId missingCallerLocation(Profile& p) {
  return namedLocation(p, kNone, kMissingCallerAddress, kMissingCallerName);
}

}  // namespace strobe::model
