// Samples grouped by thread, in time order, and how a thread is named: the
// shared view of the writers that emit one track or profile per thread
// (speedscope, chrome, html).
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace strobe::output {

// Sample indices per tid (tids ascending), each list in time order (stable:
// samples with equal times keep their recorded order).
std::map<int32_t, std::vector<uint32_t>> samplesByThread(const model::Profile& p);

// The thread's name, "thread" when it has none.
std::string threadName(const model::Profile& p, int32_t tid);

// "name (tid)", as speedscope and chrome title a thread; "worker 3 (tid
// 4242)" for a thread with a role (model::threadTitle).
std::string threadLabel(const model::Profile& p, int32_t tid);

}  // namespace strobe::output
