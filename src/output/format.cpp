#include "output/format.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "model/callers.hpp"
#include "model/measure.hpp"
#include "output/flamegraph_writer.hpp"
#include "output/folded_writer.hpp"
#include "output/html_writer.hpp"
#include "output/json_writers.hpp"
#include "output/pprof_writer.hpp"
#include "output/span_table.hpp"
#include "output/text_report.hpp"

namespace strobe::output {
namespace {

constexpr std::array<std::pair<std::string_view, Format>, 9> kNames{{
    {"text", Format::kText},
    {"folded", Format::kFolded},
    {"flamegraph", Format::kFlamegraph},
    {"pprof", Format::kPprof},
    {"speedscope", Format::kSpeedscope},
    {"chrome", Format::kChrome},
    {"json", Format::kJson},
    {"csv", Format::kCsv},
    {"html", Format::kHtml},
}};

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Result<Format> parseFormat(std::string_view name) {
  for (const auto& [n, f] : kNames) {
    if (n == name) return f;
  }
  if (name == "svg") return Format::kFlamegraph;
  return makeError("unknown format '" + std::string(name) + "'", "use one of: " + formatList(),
                   ErrorKind::kUsage);
}

std::string formatList() {
  std::string s;
  for (const auto& [n, f] : kNames) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

std::string_view formatName(Format f) {
  for (const auto& [n, fmt] : kNames) {
    if (fmt == f) return n;
  }
  return "text";
}

std::optional<Format> formatFromPath(std::string_view path) {
  if (endsWith(path, ".pb.gz") || endsWith(path, ".pb") || endsWith(path, ".pprof")) {
    return Format::kPprof;
  }
  if (endsWith(path, ".svg")) return Format::kFlamegraph;
  if (endsWith(path, ".folded") || endsWith(path, ".collapsed")) return Format::kFolded;
  if (endsWith(path, ".txt")) return Format::kText;
  if (endsWith(path, ".csv")) return Format::kCsv;
  if (endsWith(path, ".speedscope.json")) return Format::kSpeedscope;
  if (endsWith(path, ".trace.json") || endsWith(path, ".chrome.json")) return Format::kChrome;
  if (endsWith(path, ".html") || endsWith(path, ".htm")) return Format::kHtml;
  return std::nullopt;
}

namespace {

Status checkSpanFilter(const model::Profile& p, const model::SpanSelection& s) {
  if (model::hasSpanName(p, s.name)) return {};
  if (p.spans().empty()) {
    return makeError("the recording has no spans (--span " + s.name + ")",
                     "spans come from programs linked with libstrobe that call "
                     "strobe_span_begin/strobe_span_end",
                     ErrorKind::kUsage);
  }
  return makeError("no span is named '" + s.name + "'",
                   "see the span names with: strobe report FILE --spans", ErrorKind::kUsage);
}

Status writeSelected(const model::Profile& p, Format f, const ReportOptions& opt,
                     const model::Profile& recording, std::FILE* out);

}  // namespace

Status writeFormat(const model::Profile& p, Format f, const ReportOptions& opt, std::FILE* out) {
  if (opt.spans && f != Format::kText && f != Format::kJson && f != Format::kCsv) {
    return makeError("--spans is a table: it has no " + std::string(formatName(f)) + " form",
                     "use --format text, json or csv with --spans", ErrorKind::kUsage);
  }
  ReportOptions o = opt;
  if (opt.filter.span) {
    if (Status s = checkSpanFilter(p, *opt.filter.span); !s.ok()) return s;
    o.span_selection = spanSelectionLine(p, *opt.filter.span);
  }
  model::View view = opt.view;
  if (view != model::View::kAuto) {
    if (auto st = model::checkView(p, view); !st) return st;
  } else {
    view = model::viewOf(p);
  }
  // The samples the view adds (pprof: every kind, one sample type each).
  model::SampleFilter filter = opt.filter;
  filter.view = f == Format::kPprof ? model::View::kAuto : view;
  const bool drops =
      !opt.filter.empty() ||
      (filter.view != model::View::kAuto &&
       std::any_of(p.samples().begin(), p.samples().end(),
                   [&](const model::Sample& s) { return !model::inView(view, s.kind); }));
  if (!drops && model::viewOf(p) == view) return writeSelected(p, f, o, p, out);
  // The header's time per thread comes from every kind, within the filter.
  model::Profile selected = model::filterSamples(p, filter);
  selected.setView(view);
  if (opt.filter.empty() || f != Format::kText) return writeSelected(selected, f, o, p, out);
  model::SampleFilter window = opt.filter;
  window.view = model::View::kAuto;
  return writeSelected(selected, f, o, model::filterSamples(p, window), out);
}

namespace {

Status writeSelected(const model::Profile& p, Format f, const ReportOptions& opt,
                     const model::Profile& recording, std::FILE* out) {
  if (opt.spans) {
    Status st = writeSpanTable(p,
                               f == Format::kJson  ? SpanTableFormat::kJson
                               : f == Format::kCsv ? SpanTableFormat::kCsv
                                                   : SpanTableFormat::kText,
                               opt.no_inline, opt.source, out);
    if (st && (std::fflush(out) != 0 || std::ferror(out))) {
      return systemError("cannot write the report", "check the output path and free space");
    }
    return st;
  }
  Status st;
  TableOptions table;
  table.by = opt.by;
  table.no_inline = opt.no_inline;
  table.top = opt.top;
  table.threshold_pct = opt.threshold_pct.value_or(0);
  table.source = opt.source;
  table.bucket = opt.bucket;
  switch (f) {
    case Format::kText: {
      for (const std::string* func : {&opt.callers, &opt.callees}) {
        if (!func->empty() && model::neighbors(p, *func, false, opt.no_inline).tables.empty()) {
          return makeError("no function matches '" + *func + "'",
                           "see the function names in 'strobe report FILE --top 0'",
                           ErrorKind::kUsage);
        }
      }
      TextOptions t;
      t.by = opt.by;
      t.top = opt.top == 0 ? SIZE_MAX : opt.top;
      t.header = opt.header;
      t.no_inline = opt.no_inline;
      t.tree = opt.tree;
      t.threshold_pct = opt.threshold_pct.value_or(opt.tree ? 0.5 : 0.0);
      t.callers = opt.callers;
      t.callees = opt.callees;
      t.width = opt.width;
      t.bucket = opt.bucket;
      t.span_selection = opt.span_selection;
      t.recording = &recording;
      writeTextReport(p, t, opt.source, out);
      break;
    }
    case Format::kFolded:
      st = writeFolded(p, FoldedOptions{opt.no_inline, opt.per_thread}, out);
      break;
    case Format::kFlamegraph: {
      FlamegraphOptions fg;
      fg.no_inline = opt.no_inline;
      fg.per_thread = opt.per_thread;
      if (!opt.source.empty()) fg.title = flamegraphTitle(p) + ": " + opt.source;
      st = writeFlamegraph(p, fg, out);
      break;
    }
    case Format::kPprof:
      st = writePprof(p, PprofOptions{opt.no_inline}, out);
      break;
    case Format::kSpeedscope:
      st = writeSpeedscope(p, opt.no_inline, opt.source.empty() ? "strobe" : opt.source, out);
      break;
    case Format::kChrome:
      st = writeChromeTrace(p, opt.no_inline, out);
      break;
    case Format::kJson:
      st = writeJsonTable(p, table, out);
      break;
    case Format::kCsv:
      st = writeCsvTable(p, table, out);
      break;
    case Format::kHtml:
      st = writeHtml(p, HtmlOptions{opt.no_inline, opt.source, opt.source_lines}, out);
      break;
  }
  if (!st) return st;
  if (std::fflush(out) != 0 || std::ferror(out)) {
    return systemError("cannot write the report", "check the output path and free space");
  }
  return {};
}

}  // namespace

}  // namespace strobe::output
