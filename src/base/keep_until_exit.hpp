// keepUntilExit: an object a command no longer needs, left for the
// process's exit to reclaim instead of being destroyed.
//
// Why: a command that exits right after its work (strobe report: a Profile
// of thousands of stacks and locations, a symbolizer's indexes and mapped
// debug files) spent about 6% of its CPU freeing them block by block and
// unmapping them; the kernel takes the whole address space back at exit
// for less.
// Only for what holds memory, mappings and descriptors opened for reading:
// the destructor never runs, so nothing that must be flushed, deleted,
// joined or stopped. Not for long-running processes (the recorder, the
// agent, libstrobe). The objects stay reachable from a global list, so leak
// checkers do not report them.
// Thread safety: callable from any thread.
#pragma once

#include <memory>

namespace strobe {

void keepUntilExit(std::shared_ptr<void> object);

template <typename T>
void keepUntilExit(std::unique_ptr<T> object) {
  keepUntilExit(std::shared_ptr<void>(std::move(object)));
}

}  // namespace strobe
