// Callers and callees of a function: for every sample whose stack holds the
// function, the frame just above it (its caller, "(root)" at the top) or
// just below it (its callee, "(self)" when it is the leaf). Each neighbor is
// credited once per sample, so shares never exceed 100% of the function.
//
// The function is named by its display name: an exact match, else every
// function whose name contains `func`.
// Thread safety: pure over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

struct Neighbor {
  std::string name;
  uint64_t weight = 0;
  uint64_t samples = 0;
};

struct NeighborTable {
  std::vector<std::string> matched;  // the names that matched, sorted
  uint64_t weight = 0;               // samples with a matched function on the stack
  uint64_t samples = 0;
  std::vector<Neighbor> rows;  // heaviest first
};

// nullopt when no frame of the profile matches `func`.
std::optional<NeighborTable> neighbors(const Profile& p, std::string_view func, bool callees,
                                       bool fold_inline);

}  // namespace strobe::model
