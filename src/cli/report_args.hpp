// The options `strobe report` and `strobe diff` share: the output (--format,
// -o), the table (--by, --top, --width, --threshold), the filters (--since,
// --until, --tid, --thread), --no-inline and --view; how they become
// output::ReportOptions, which format they ask for, and how a recording is
// read for a report (a perf.data imported; an incomplete recording
// symbolized now, with a warning).
// Thread safety: main thread only.
#pragma once

#include <CLI/CLI.hpp>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "cli/recording_input.hpp"
#include "model/profile.hpp"
#include "output/format.hpp"

namespace strobe::cli {

inline constexpr int64_t kWidthUnset = INT64_MIN;

struct TableArgs {
  std::string format;
  std::string output;
  std::string by = "function";
  int64_t top = 20;
  int64_t width = kWidthUnset;  // the terminal's (none when stdout is not one)
  double threshold = -1;
  std::string since, until;
  std::vector<int32_t> tids;
  std::vector<std::string> threads;
  bool no_inline = false;
  std::string view;   // --view cpu|off-cpu|wall ("": the recording's own)
  std::string event;  // --event: which of a perf.data's events
};

// Registers the options on `sub`; `formats` and `by_help` list the
// --format and --by values it takes.
void addTableOptions(CLI::App* sub, TableArgs& a, const std::string& formats,
                     const std::string& by_help);

// Sets opt's top, threshold, by, filter (window, threads), no_inline, view
// and width from `a` (width: -o given, or stdout not a terminal: no limit).
// Errors are kUsage with the hint the user needs.
Status applyTableArgs(const TableArgs& a, output::ReportOptions& opt);

// The format --format names, else the one -o's extension implies, else
// text; kUsage errors for an unknown name, an extension that says nothing,
// and pprof (binary) to a terminal.
Result<output::Format> resolveFormat(const TableArgs& a);

// readRecording(path, input) (a strobe recording or a perf.data), then
// completeForReport: an incomplete recording (strobe record killed) is
// symbolized from the programs on this machine, with a warning.
Result<model::Profile> readForReport(const std::string& path, const InputOptions& input);
void completeForReport(const std::string& path, model::Profile& profile);

// Where a report goes: stdout, or -o's file (created now). close() closes
// it and says whether everything was written; on failure the file is removed.
class ReportOutput {
 public:
  Result<std::FILE*> open(const std::string& path);
  Status close(Status written);

 private:
  std::string path_;
  std::FILE* file_ = stdout;
};

}  // namespace strobe::cli
