// The text report: a header (command, duration, samples, lost, rate) and a
// table SELF% TOTAL% SELF-TIME FUNCTION LOCATION sorted by self time.
// Reads only the model; writes to the given FILE*. Thread safety: none
// needed (pure over a const Profile).
#pragma once

#include <cstdio>
#include <string>

#include "model/aggregate.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct TextOptions {
  model::GroupBy by = model::GroupBy::kFunction;
  size_t top = 20;
  bool header = true;
};

// Writes the whole report. `source` names the recording in the header.
void writeTextReport(const model::Profile& p, const TextOptions& opt, const std::string& source,
                     std::FILE* out);

// Only the table (used by `record`'s summary too).
void writeTopTable(const model::Profile& p, const TextOptions& opt, std::FILE* out);

// "1.23 s", "45.6 ms", "789 us": a duration for people.
std::string formatDuration(uint64_t ns);

// The command line as a shell would show it (arguments with spaces quoted).
std::string formatCommand(const std::vector<std::string>& argv);

}  // namespace strobe::output
