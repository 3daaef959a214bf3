// importPerfData: a perf.data recording (perfdata::Reader) as a Profile, the
// way `strobe record` would have made it: its records go through the same
// Converter (record/converter.hpp), so address spaces, threads, LOST and
// THROTTLE records, -g callchains and their context markers, kernel frames
// and --call-graph dwarf stacks (unwound by strobe's unwinder) come out as
// in a native recording, and the Profile is then symbolized once, against
// the files the recording names, found by build-id (module_files.hpp) and
// the kernel's symbols (kernel_symbols.hpp). JIT code is named from the
// runtimes' /tmp/perf-PID.map and jitdump files when they are still there
// (as perf report reads them), and from `perf inject --jit`'s
// jitted-PID-N.so files like any other file.
//
// One event per Profile: a perf.data may hold several (cycles and
// instructions, ...); ImportOptions::event chooses one, by perf's name
// ("cycles:u") or strobe's ("cycles"); by default the first that samples.
// Problems that do not stop the import (a file cut off, records that did
// not decode, modules that could not be found) are warnings, one line each.
// Thread safety: none; one import at a time per Profile.
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"
#include "perfdata/reader.hpp"
#include "record/converter.hpp"

namespace strobe::import {

struct ImportOptions {
  std::string event;         // "": the first event that samples
  bool keep_code = false;    // keep the code of sampled functions (annotate, a stored recording)
  std::string build_id_dir;  // perf's build-id cache; "": defaultBuildIdDir()
  std::string perf_map_dir = "/tmp";
  // false: the Profile as converted, its frames unnamed and its JIT code
  // not looked for (the fuzz target: no files but the perf.data read).
  bool symbolize = true;
  // The caller exits after it (a command): the symbolizer's indexes and
  // mapped files are left to the exit (base/keep_until_exit.hpp).
  bool keep_until_exit = false;
};

struct ImportOutcome {
  std::vector<std::string> warnings;
  std::vector<std::string> events;  // the events that sample, by perf's names
  std::string event;                // the one imported
  perfdata::ReadStats read;
  record::ConverterStats stats;
  uint64_t malformed = 0;  // records that did not decode
  bool cut_short = false;  // the file ended early or broke (see warnings)
};

// Errors: kNotFound (no such file), kCorrupt (not a perf.data, an
// unreadable header), kUnsupported (the other byte order), kUsage (no
// such --event).
Result<ImportOutcome> importPerfData(const std::string& path, const ImportOptions& options,
                                     model::Profile& out);
// The same from a Reader already open (a stream, a memory file).
Result<ImportOutcome> importPerfData(perfdata::Reader& reader, const ImportOptions& options,
                                     model::Profile& out);

}  // namespace strobe::import
