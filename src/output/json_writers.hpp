// The JSON-based writers, streamed to a FILE* (RapidJSON's Writer; chrome
// formats its many events itself, escaping names as RapidJSON does):
//
//  speedscope  speedscope's file format
//              (https://www.speedscope.app/file-format-schema.json): shared
//              frames (name, file, line) and one "sampled" profile per
//              thread, named "thread-name (tid)", samples in time order,
//              each weighted in the view's unit (nanoseconds, or "none"
//              for counts of an event).
//  chrome      Trace Event Format for Perfetto and chrome://tracing: one
//              process, one named track per thread (thread_name metadata),
//              and on each track the program's spans ("cat":"span", outer
//              first) and the sampled stacks over time as nested complete
//              ("X") events, one per frame, merged while consecutive
//              samples share the frame and cut at span boundaries; off-CPU
//              slices have "cat":"off-cpu" and their reason in args. The
//              start on both clocks is in otherData. A failed write
//              returns "cannot write the report" with errno.
//  json        the top table (see docs/FORMATS.md for the field names).
//
// Thread safety: pure over a const Profile; `out` is the caller's.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.hpp"
#include "model/aggregate.hpp"
#include "model/profile.hpp"

namespace strobe::output {

Status writeSpeedscope(const model::Profile& p, bool no_inline, const std::string& name,
                       std::FILE* out);

Status writeChromeTrace(const model::Profile& p, bool no_inline, std::FILE* out);

struct TableOptions {
  model::GroupBy by = model::GroupBy::kFunction;
  bool no_inline = false;
  size_t top = 0;            // 0: every row
  double threshold_pct = 0;  // rows whose total share is below are left out
  std::string source;        // the recording's name
  uint64_t bucket = 1;       // --by address: bytes per row
};

Status writeJsonTable(const model::Profile& p, const TableOptions& opt, std::FILE* out);
Status writeCsvTable(const model::Profile& p, const TableOptions& opt, std::FILE* out);

// The rows a table shows: topTable trimmed by threshold and top.
std::vector<model::TopRow> tableRows(const model::Profile& p, const TableOptions& opt,
                                     uint64_t total_weight);

}  // namespace strobe::output
