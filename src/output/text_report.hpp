// The text report: a header (command, duration, samples, lost, rate; the
// view, and CPU, off-CPU and wall time per thread for a recording with
// off-CPU time) and a table SELF% TOTAL% SELF-TIME (or SELF, a count)
// FUNCTION LOCATION sorted by self time (or by line, file, module or
// thread); or the top-down call tree (--tree); or the callers / callees of a
// function with their shares.
// Reads only the model; writes to the given FILE*. Thread safety: none
// needed (pure over a const Profile).
#pragma once

#include <cstdio>
#include <string>

#include "model/aggregate.hpp"
#include "model/measure.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct TextOptions {
  model::GroupBy by = model::GroupBy::kFunction;
  size_t top = 20;
  bool header = true;
  bool no_inline = false;      // fold inlined frames into their caller
  double threshold_pct = 0;    // hide rows / tree nodes below this total share
  bool tree = false;           // the call tree instead of the table
  std::string callers;         // the callers of this function instead
  std::string callees;         // the callees of this function instead
  std::string span_selection;  // a header line: which spans the samples are from ("" none)
  uint64_t bucket = 1;         // --by address: bytes per row
  // The profile before the view selected its samples: the header's CPU,
  // off-CPU and wall time per thread come from it. Null: the one reported.
  const model::Profile* recording = nullptr;
};

// Writes the whole report. `source` names the recording in the header.
void writeTextReport(const model::Profile& p, const TextOptions& opt, const std::string& source,
                     std::FILE* out);

// --by address: the table with an ADDRESS column (address_report.cpp).
void writeAddressTable(const model::Profile& p, const TextOptions& opt, std::FILE* out);

// Only the table (used by `record`'s summary too).
void writeTopTable(const model::Profile& p, const TextOptions& opt, std::FILE* out);

// The top-down call tree: TOTAL% SELF% TOTAL-TIME, indented names, nodes
// below opt.threshold_pct left out (by thread: one tree per thread).
void writeCallTree(const model::Profile& p, const TextOptions& opt, std::FILE* out);

// Who calls / what is called by the functions named `func` (see
// model::neighbors). Returns false (and writes nothing) when none matches.
bool writeCallers(const model::Profile& p, const TextOptions& opt, const std::string& func,
                  bool callees, std::FILE* out);

// 100 * part / whole (0 when whole is 0).
double sharePct(uint64_t part, uint64_t whole);

// "1.23 s", "45.6 ms", "789 us": a duration for people.
std::string formatDuration(uint64_t ns);

// A weight in the unit of the profile's view: a duration for time views,
// "1234 faults" for counts (model::measureOf).
std::string formatWeight(uint64_t weight, const model::Measure& m);

// The header lines of a recording with off-CPU time (record --off-cpu):
// CPU sampled, off-CPU (by reason) and wall time, in all and per thread
// (the busiest `max_threads`), what was not recorded (short intervals,
// lost switch records). Empty for other recordings. Each line ends in '\n'.
std::string offCpuHeader(const model::Profile& recording, size_t max_threads = 10);

// The command line as a shell would show it (arguments with spaces quoted).
std::string formatCommand(const std::vector<std::string>& argv);

// What was profiled, for headers: the command line; "pid 12,34 (./server)"
// for an attach; "the whole system" for -a.
std::string formatTarget(const model::Meta& m);

}  // namespace strobe::output
