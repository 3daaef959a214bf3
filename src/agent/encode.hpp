// The profiles the agent hands out: the samples of one time range (and
// process selection) of the Profile the session fills, as a gzipped pprof
// profile (output/pprof_writer.hpp) whose samples carry the labels a
// continuous-profiling backend groups by: pid, comm, thread (name), tid,
// role when the program gave one, and the agent's own (host, --label).
// Thread safety: pure over a const Profile.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "agent/windows.hpp"
#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::agent {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A profile of its own holding the samples with since_ns <= time_ns <
// until_ns (times since the recording's start) of the selected processes,
// and only what they use: their stack nodes, locations (with the lines `p`
// has for them), functions, modules and threads; `p`'s JIT table and
// anonymous regions, for naming JIT frames. Its meta is `p`'s, saying the
// range (start, duration). Small next to `p`, whatever `p` holds, so it can
// be named and encoded on another thread.
model::Profile selectSamples(const model::Profile& p, uint64_t since_ns, uint64_t until_ns,
                             const Selection& selection);

// The gzipped pprof bytes of `p`, labelled as above.
Result<std::string> encodePprof(const model::Profile& p, const Labels& labels);

}  // namespace strobe::agent
