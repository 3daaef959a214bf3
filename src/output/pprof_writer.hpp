// The pprof writer: profile.proto (github.com/google/pprof/proto), gzipped,
// as `go tool pprof` reads it. Sample types from the data
// (model/measure.hpp): samples/count, then cpu/nanoseconds, wall/nanoseconds
// (libstrobe's wall mode) or EVENT/count (page-faults/count, ...); a
// recording with off-CPU time has samples, cpu, off-cpu and wall (= cpu +
// off-cpu) so that `pprof -sample_index` switches, the view's type being
// the default. Period type: the first time or count type; one mapping per
// module (with its build id); one function per function identity (a clone
// is its function; name, system name, file, start line), plus one per other
// file its lines lie in (a pprof line has no file); one location per model
// location with its inline chain as several lines (innermost first, as
// pprof expects); one sample per distinct (stack, thread) with labels
// `thread` (name), `tid`, `role` when the thread has one, and those
// PprofOptions asks for, a function's call into its own clone left out
// of the stack.
//
// Streams: messages are encoded with protozero in small chunks and
// deflated to `out` as they are made. Thread safety: pure over a const
// Profile. Errors: a Status naming the failed write.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct PprofOptions {
  bool no_inline = false;  // one line per location: the real function
  // Also label each sample with its process: `pid` (number) and `comm`
  // (the process's name: its main thread's), for profiles of many
  // processes (strobe agent).
  bool process_labels = false;
  // Only the mappings of modules that hold a sampled location (a profile of
  // one process out of a whole host's; pprof names the first the main binary).
  bool used_mappings_only = false;
  // Labels given to every sample (key, value), e.g. the host name.
  std::vector<std::pair<std::string, std::string>> labels;
};

Status writePprof(const model::Profile& p, const PprofOptions& opt, std::FILE* out);

}  // namespace strobe::output
