// What the end-to-end tests read back from a recording: the Profile itself
// and a function's self share. Test-only; no state.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "model/aggregate.hpp"
#include "model/profile.hpp"
#include "store/store.hpp"

namespace strobe::test {

// The recording at `path`, or an empty Profile (and a test failure).
inline model::Profile loadRecording(const std::string& path) {
  auto p = store::readProfile(path);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().describe());
  return p.ok() ? std::move(*p) : model::Profile();
}

// Self share (percent of all sampled weight) of the function named `name`.
inline double selfShare(const model::Profile& p, const std::string& name) {
  uint64_t total = model::totals(p).weight;
  if (total == 0) return 0.0;
  for (const auto& r : model::topTable(p, model::GroupBy::kFunction)) {
    if (r.function == name) return 100.0 * static_cast<double>(r.self) / static_cast<double>(total);
  }
  return 0.0;
}

}  // namespace strobe::test
