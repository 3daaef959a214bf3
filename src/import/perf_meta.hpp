// What a perf.data recording's header says, as the Profile's Meta: the
// event and how it was sampled (from its perf_event_attr), where it was
// made (hostname, OS release, CPU), and by which command line (perf's own,
// kept as Meta::source; the profiled command and the target, -a or -p, read
// from it the way perf record parses its arguments).
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "model/profile.hpp"
#include "perfdata/events.hpp"
#include "perfdata/features.hpp"

namespace strobe::import {

// The profiled command and target of a perf record command line (perf's
// argv: "/usr/bin/perf", "record", options, then the command).
struct PerfTarget {
  std::vector<std::string> command;  // after the options (or "--"); empty for -a / -p
  std::string target = "command";    // "command", "system" (-a, -C) or "pid N[,M]" (-p, -t)
};
PerfTarget perfTarget(const std::vector<std::string>& cmdline);

// The event's name as strobe names events ("cpu-clock", "cycles"), perf's
// own (with its modifiers, "cycles:u") for one strobe does not know.
std::string strobeEventName(const perfdata::EventList& events, size_t index);

// The wall-clock time of the first sample (time `first` of the sample
// clock): from HEADER_CLOCK_DATA when perf wrote it (perf record -k), else
// the file's modification time (perf record's end) less the duration; 0
// when neither is known.
uint64_t startRealtime(const perfdata::Features& f, uint64_t first, uint64_t duration_ns,
                       uint64_t file_mtime_ns);

// Fills the meta the header gives for event `index` (not the times, counts
// and the stats of reading).
void fillMeta(const perfdata::Features& f, const perfdata::EventList& events, size_t index,
              model::Meta& m);

}  // namespace strobe::import
