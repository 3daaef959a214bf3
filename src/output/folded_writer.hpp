// Folded stacks: one line per distinct stack, "root;caller;...;leaf VALUE",
// the input of flamegraph.pl and inferno. VALUE is the summed sample weight
// (ns of CPU time for cpu-clock), so the lines add up to the report's CPU
// total. per_thread roots each stack at "thread-name (tid)". Semicolons and
// line breaks inside names are replaced (they would split frames).
// Streams from the call tree. Thread safety: pure over a const Profile.
#pragma once

#include <cstdio>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct FoldedOptions {
  bool no_inline = false;
  bool per_thread = false;
};

Status writeFolded(const model::Profile& p, const FoldedOptions& opt, std::FILE* out);

}  // namespace strobe::output
