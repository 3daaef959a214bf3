// The recording a reading command (report, annotate, import) was given:
// strobe's own (a SQLite file) or a perf.data, told apart by its first
// bytes ("PERFILE2"); "-" reads a perf.data stream (perf record -o -) from
// standard input. A perf.data is imported (import/perf_import.hpp) with
// its warnings printed, one line each; `event` chooses among its events.
// Thread safety: main thread only (prints).
#pragma once

#include <string>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::cli {

struct InputOptions {
  std::string event;       // --event ("": the first); a strobe recording must match it
  bool keep_code = false;  // a perf.data: keep the sampled functions' code (annotate)
};

// Whether `path` names a perf.data ("-" does).
bool isPerfDataInput(const std::string& path);

// Reads `path`. Errors as store::readProfile's and importPerfData's.
Result<model::Profile> readRecording(const std::string& path, const InputOptions& options);

}  // namespace strobe::cli
