// The one place that maps a report format to its writer. Every writer reads
// only the model and streams to a FILE* (no whole document in memory).
//
//   text        the header and top table; --tree, --callers, --callees
//   folded      "root;...;leaf weight" lines for flamegraph.pl and inferno
//   flamegraph  a self-contained interactive SVG
//   html        a self-contained viewer: timeline, flame graph, top table
//   pprof       gzipped profile.proto (go tool pprof)
//   speedscope  speedscope's JSON file format, one profile per thread
//   chrome      Trace Event Format JSON (Perfetto, chrome://tracing)
//   json, csv   the top table with documented field names
//
// Thread safety: pure functions over a const Profile; the caller owns `out`
// (writers never close it). Errors: Status with a one-line message and hint.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "model/aggregate.hpp"
#include "model/filter.hpp"
#include "model/profile.hpp"

namespace strobe::output {

enum class Format { kText, kFolded, kFlamegraph, kPprof, kSpeedscope, kChrome, kJson, kCsv, kHtml };

// What to show and which samples to count. Every format applies `filter`,
// `view` and `no_inline`; the rest applies where it makes sense (see each
// field).
struct ReportOptions {
  model::SampleFilter filter;  // --since/--until, --tid, --thread
  // --view: which kinds of samples count (model/measure.hpp); kAuto: the
  // recording's own view. pprof keeps every time kind as its own sample
  // type and makes this view's the default.
  model::View view = model::View::kAuto;
  bool no_inline = false;                         // fold inlined frames into their caller
  model::GroupBy by = model::GroupBy::kFunction;  // text, json, csv
  size_t top = 20;                                // text, json, csv: rows (0: all)
  // Hide rows / tree nodes whose total share is below this percentage
  // (text, json, csv). Unset: 0 for tables, 0.5 for --tree.
  std::optional<double> threshold_pct;
  bool tree = false;        // text: the top-down call tree instead of the table
  std::string callers;      // text: who calls this function
  std::string callees;      // text: what this function calls
  bool per_thread = false;  // folded: root each stack at its thread
  uint64_t bucket = 1;      // --by address: bytes per row (model::validBucket)
  bool header = true;       // text: the recording summary above the table
  size_t width = 0;         // text: columns names must fit in; 0: no limit (text_width.hpp)
  std::string source;       // text: how to name the recording in the header
  // html: the lines of a source file, nullptr when it cannot be read; unset:
  // no source text is embedded (line numbers only).
  std::function<const std::vector<std::string>*(const std::string& file)> source_lines;
  // The span table (report --spans) instead: text, json or csv only.
  bool spans = false;
  std::string span_selection;  // text: the header's line for a span filter (set by writeFormat)
};

// "text", "folded", "flamegraph" (or "svg"), "pprof", "speedscope",
// "chrome", "json", "csv", "html". Errors are kUsage with the list of
// formats (formatList()).
Result<Format> parseFormat(std::string_view name);

// The format an output path implies by its extension: .pb.gz/.pb/.pprof ->
// pprof, .svg -> flamegraph, .folded -> folded, .txt -> text, .csv -> csv,
// .speedscope.json -> speedscope, .trace.json/.chrome.json -> chrome,
// .html/.htm -> html;
// nullopt when it says nothing (a plain .json is ambiguous).
std::optional<Format> formatFromPath(std::string_view path);

// Every format's name, for messages: "text, folded, ..., html".
std::string formatList();

// The canonical name of a format ("flamegraph", "pprof", ...).
std::string_view formatName(Format f);

// Writes `p` in format `f`. Binary formats (pprof) write bytes as they are.
// A span filter naming no span of the recording is a kUsage error.
// A view the recording cannot show is a kUsage error (model::checkView).
Status writeFormat(const model::Profile& p, Format f, const ReportOptions& opt, std::FILE* out);

}  // namespace strobe::output
