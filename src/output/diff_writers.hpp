// strobe diff's outputs: the formats that have a diff form, each reading
// only the comparison (model/diff.hpp) and, for the pictures and pprof, the
// merged call tree (model/diff_tree.hpp). docs/FORMATS.md, "strobe diff",
// describes each:
//
//   text        a header (the runs, what is compared, how noise was
//               estimated, the smallest detectable change, the total) and
//               one row per function: self time on both sides, its change
//               and its noise bar, the change in share, total time, verdict
//   json, csv   the same rows with documented field names
//   flamegraph  the differential flame graph (diff_flamegraph.cpp)
//   pprof       sample values new minus base (diff_pprof.cpp)
//   html        the compare page (diff_html.cpp)
//
// Thread safety: pure over const inputs; `out` is the caller's (never
// closed here). Errors: Status naming the failed write.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/diff.hpp"
#include "model/diff_tree.hpp"
#include "output/format.hpp"
#include "output/html_writer.hpp"

namespace strobe::output {

struct DiffReportOptions {
  size_t top = 20;           // text, json, csv: rows (0: all)
  double threshold_pct = 0;  // rows whose total is below this share on both sides are left out
  size_t width = 0;          // text: columns names must fit in (text_width.hpp)
  std::string title;         // flamegraph, html: "" for the default
  // html: each run's samples as compared (its own viewer page), base then new.
  std::vector<const model::Profile*> runs;
  HtmlOptions html;
};

// Whether format `f` has a diff form (text, json, csv, flamegraph, html, pprof).
bool hasDiffForm(Format f);

// `tree` must be set for flamegraph, html and pprof (model::diffTree).
Status writeDiff(const model::ProfileDiff& d, const model::DiffTree* tree, Format f,
                 const DiffReportOptions& opt, std::FILE* out);

// The rows a table shows: threshold and top applied.
std::vector<const model::DiffRow*> diffTableRows(const model::ProfileDiff& d,
                                                 const DiffReportOptions& opt);

// Text pieces every diff writer shares: an amount in the diff's unit
// ("1.20 s", "450 us", "1234 faults"), signed ("+301.1 ms", "-2.00 s"), a
// change in percent ("+50.1%"; "new" when the base had none).
std::string diffAmount(double v, const model::Measure& m);
std::string signedAmount(double v, const model::Measure& m);
std::string changePctText(const model::DiffMeasure& m);
// "CPU time per run", "CPU time per run, as shares of the total (the base
// scaled to the new total)", "CPU time per 'request' span".
std::string comparedText(const model::ProfileDiff& d);
// The line a verdict stands on: how noise was estimated and the bars.
std::string methodText(const model::ProfileDiff& d);
// The text report's header lines ("base:  ...", "new: ...", "compared:",
// "noise:", "verdict:", "detectable:", "total:"), which the compare page
// shows too; and the heading of the rows' name column ("FUNCTION", ...).
std::vector<std::string> diffHeader(const model::ProfileDiff& d);
std::string_view diffHeading(model::GroupBy by);

Status writeDiffText(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out);
Status writeDiffJson(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out);
Status writeDiffCsv(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out);
Status writeDiffFlamegraph(const model::ProfileDiff& d, const model::DiffTree& t,
                           const DiffReportOptions& opt, std::FILE* out);
Status writeDiffPprof(const model::ProfileDiff& d, const model::DiffTree& t, std::FILE* out);
Status writeDiffHtml(const model::ProfileDiff& d, const model::DiffTree& t,
                     const DiffReportOptions& opt, std::FILE* out);

}  // namespace strobe::output
