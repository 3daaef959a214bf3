// Compaction of a Profile that is filled for days (strobe agent): samples
// older than a cut-off are dropped, and with them the stack nodes that no
// kept sample, and no stack a caller still holds (`live`: the recorder's
// open off-CPU intervals), uses. Stack ids are renumbered (the returned map
// says how, for whoever caches them); strings, modules, functions,
// locations (and so their symbolized lines), threads, spans and meta are
// kept as they are, so a symbolizer's state over locations stays valid.
//
// Thread safety: mutates one Profile; none. No I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

struct Compaction {
  std::vector<StackId> stack_map;  // old id -> new id (kNone: dropped)
  size_t samples_dropped = 0;
  size_t stacks_dropped = 0;
};

// Drops the samples with time_ns < before_ns and the stacks nothing uses.
Compaction compactProfile(Profile& p, uint64_t before_ns, const std::vector<StackId>& live);

}  // namespace strobe::model
