#include "model/compact.hpp"

#include <algorithm>

namespace strobe::model {

Compaction compactProfile(Profile& p, uint64_t before_ns, const std::vector<StackId>& live) {
  Compaction c;
  std::vector<Sample>& samples = p.mutableSamples();
  const size_t before = samples.size();
  std::erase_if(samples, [before_ns](const Sample& s) { return s.time_ns < before_ns; });
  c.samples_dropped = before - samples.size();

  const std::vector<StackNode>& stacks = p.stacks();
  std::vector<bool> keep(stacks.size(), false);
  auto mark = [&](StackId leaf) {
    for (StackId s = leaf; s != kNone && s < stacks.size() && !keep[s]; s = stacks[s].parent) {
      keep[s] = true;
    }
  };
  for (const Sample& s : samples) mark(s.stack);
  for (StackId s : live) mark(s);
  const size_t stacks_before = stacks.size();
  c.stack_map = p.keepStacks(keep);
  c.stacks_dropped = stacks_before - p.stacks().size();
  return c;
}

}  // namespace strobe::model
