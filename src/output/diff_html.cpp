// strobe diff's compare page: viewer/compare.html with the comparison
// inside as compact JSON (docs/FORMATS.md, "strobe diff", html), and each
// run's own viewer page (html_writer.hpp) as a JSON string in a script
// element of its own, which the page opens in a frame when asked. Strings
// are escaped for a script element (page_data.hpp); the page inserts names
// as text only.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "model/spans.hpp"
#include "output/diff_writers.hpp"
#include "output/file_buffer.hpp"
#include "output/page_data.hpp"
#include "output/viewer_assets.hpp"

namespace strobe::output {
namespace {

constexpr size_t kTimelineBins = 400;
constexpr size_t kTimelineThreads = 12;  // the busiest; the others in one row

uint64_t nonNegative(double v, double unit) {
  return v > 0 ? static_cast<uint64_t>(std::llround(v / unit)) : 0;
}

int verdictCode(model::Verdict v) {
  return v == model::Verdict::kSlower ? 1 : v == model::Verdict::kFaster ? 2 : 0;
}

// One run's CPU per thread over its time: the busiest threads, the others
// summed in one row.
std::string timelineJson(const model::Profile& p, size_t run, double unit) {
  uint64_t end = p.meta().duration_ns;
  for (const model::Sample& s : p.samples()) end = std::max(end, s.time_ns + 1);
  end = std::max<uint64_t>(end, 1);
  std::map<int32_t, uint64_t> busy;
  for (const model::Sample& s : p.samples()) busy[s.tid] += s.weight;
  std::vector<std::pair<uint64_t, int32_t>> order;
  for (const auto& [tid, w] : busy) order.emplace_back(w, tid);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  const size_t shown = order.size() > kTimelineThreads ? kTimelineThreads - 1 : order.size();
  std::unordered_map<int32_t, size_t> row;
  for (size_t i = 0; i < order.size(); ++i) row[order[i].second] = std::min(i, shown);
  const size_t rows = order.size() > shown ? shown + 1 : shown;
  std::vector<std::vector<double>> bins(rows, std::vector<double>(kTimelineBins, 0.0));
  for (const model::Sample& s : p.samples()) {
    const auto b = static_cast<size_t>(static_cast<double>(s.time_ns) * kTimelineBins /
                                       static_cast<double>(end));
    bins[row[s.tid]][std::min(b, kTimelineBins - 1)] += static_cast<double>(s.weight);
  }
  std::string json =
      fmt::format(R"({{"run":{},"duration_ns":{},"bins":{},"threads":[)", run, end, kTimelineBins);
  for (size_t r = 0; r < rows; ++r) {
    if (r > 0) json += ',';
    json += R"({"name":)";
    appendScriptJson(json, r < shown ? model::threadTitle(p, order[r].second)
                                     : fmt::format("{} more threads", order.size() - shown));
    json += R"(,"data":")";
    for (double v : bins[r]) appendVlq(json, nonNegative(v, unit));
    json += "\"}";
  }
  return json + "]}";
}

// A run's own viewer page, in memory.
Result<std::string> runPage(const model::Profile& p, const HtmlOptions& opt) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* mem = open_memstream(&buf, &size);
  if (mem == nullptr) return systemError("cannot make a run's page in memory");
  Status st = writeHtml(p, opt, mem);
  std::fclose(mem);
  std::string page(buf != nullptr ? buf : "", size);
  std::free(buf);
  if (!st) return st.error();
  return page;
}

}  // namespace

Status writeDiffHtml(const model::ProfileDiff& d, const model::DiffTree& t,
                     const DiffReportOptions& opt, std::FILE* file) {
  const std::string_view page = kCompareHtml;
  const size_t css_at = page.find(kCssMarker);
  const size_t data_at = page.find(kDataMarker);
  const size_t runs_at = page.find(kRunsMarker);
  const size_t js_at = page.find(kJsMarker);
  if (css_at == std::string_view::npos || data_at == std::string_view::npos ||
      runs_at == std::string_view::npos || js_at == std::string_view::npos ||
      !(css_at < data_at && data_at < js_at && js_at < runs_at)) {
    return makeError("the embedded compare page is damaged", "rebuild strobe");
  }
  const model::Measure& m = d.measure;
  const double unit = m.time() ? 1000.0 : 1.0;  // values in µs for time
  StringIds strings;

  std::string frames;
  for (const model::DiffFrame& f : t.frames) {
    appendVlq(frames, strings.intern(f.name));
    appendVlq(frames, strings.intern(f.module));
    appendVlq(frames, strings.intern(f.file));
    appendVlq(frames, f.line);
    appendVlq(frames, (f.inlined ? 1U : 0U) | (f.unresolved ? 2U : 0U));
    appendVlq(frames, f.function);
  }
  std::unordered_map<std::string, uint32_t> function_of_key;
  for (uint32_t i = 0; i < t.function_keys.size(); ++i) function_of_key[t.function_keys[i]] = i;

  std::string rows = "[";
  for (const model::DiffRow& r : d.rows) {
    if (rows.size() > 1) rows += ',';
    int64_t fn = -1;
    if (d.options.by == model::GroupBy::kFunction) {
      if (auto it = function_of_key.find(r.key); it != function_of_key.end()) fn = it->second;
    }
    rows += fmt::format("[{},{},{},{},{},{:.0f},{:.0f},{:.0f},{:.0f},{:.0f},{}]",
                        strings.intern(r.name), strings.intern(r.module), strings.intern(r.file),
                        r.line, verdictCode(r.verdict), r.self.base, r.self.next, r.self.detectable,
                        r.total.base, r.total.next, fn);
  }
  rows += "]";

  std::string meta = R"({"label":)";
  appendScriptJson(meta, m.label);
  meta += R"(,"unit":)";
  appendScriptJson(meta, m.unit);
  meta += R"(,"count_unit":)";
  appendScriptJson(meta, m.count_unit);
  meta += fmt::format(R"(,"value_unit":{:g},"heading":)", unit);
  appendScriptJson(meta, std::string(diffHeading(d.options.by)));
  meta += R"(,"title":)";
  std::string title = opt.title;
  if (title.empty()) {
    for (const auto& [side, names] :
         {std::pair{"", &d.base.names}, std::pair{" vs ", &d.next.names}}) {
      title += side;
      for (size_t i = 0; i < names->size(); ++i) title += (i ? ", " : "") + (*names)[i];
    }
  }
  appendScriptJson(meta, title);
  meta += R"(,"lines":[)";
  const std::vector<std::string> header = diffHeader(d);
  for (size_t i = 0; i < header.size(); ++i) {
    if (i > 0) meta += ',';
    appendScriptJson(meta, header[i]);
  }
  meta += fmt::format(R"(],"total":{{"base":{:.0f},"new":{:.0f},"verdict":"{}"}},"runs":[)",
                      d.total.base, d.total.next, model::verdictName(d.total.verdict));
  const size_t run_count = d.base.names.size() + d.next.names.size();
  for (size_t i = 0; i < run_count; ++i) {
    const bool base = i < d.base.names.size();
    meta += fmt::format(R"({}{{"side":"{}","name":)", i ? "," : "", base ? "base" : "new");
    appendScriptJson(meta, base ? d.base.names[i] : d.next.names[i - d.base.names.size()]);
    meta += fmt::format(R"(,"page":"run-page-{}"}})", i);
  }
  meta += "]}";

  FileBuffer out(file);
  out.append(page.substr(0, css_at));
  out.append(kViewerCss);
  out.append(kCompareCss);
  out.append(page.substr(css_at + kCssMarker.size(), data_at - css_at - kCssMarker.size()));
  out.append(R"({"format":"strobe-diff-html","version":1,"meta":)");
  out.append(meta);
  out.append(R"(,"strings":[)");
  std::string timelines = "[";
  for (size_t i = 0; i < opt.runs.size(); ++i) {
    if (i > 0) timelines += ',';
    timelines += timelineJson(*opt.runs[i], i, unit);
  }
  timelines += "]";
  std::string chunk;
  for (size_t i = 0; i < strings.list().size(); ++i) {
    if (i > 0) chunk += ',';
    appendScriptJson(chunk, strings.list()[i]);
  }
  out.append(chunk);
  out.append(fmt::format(R"(],"frame_count":{},"frames":")", t.frames.size()));
  out.append(frames);
  out.append(fmt::format(R"(","node_count":{},"nodes":")", t.nodes.size()));
  chunk.clear();
  for (uint32_t n = 0; n < t.nodes.size(); ++n) {
    const model::DiffNode& x = t.nodes[n];
    appendVlq(chunk, n == 0 ? 0 : n - x.parent);
    appendVlq(chunk, n == 0 ? 0 : x.frame);
    appendVlq(chunk, static_cast<uint64_t>(verdictCode(x.verdict)));
    appendVlq(chunk, nonNegative(x.base_self, unit));
    appendVlq(chunk, nonNegative(x.next_self, unit));
    if (chunk.size() > 60'000) {
      out.append(chunk);
      chunk.clear();
    }
  }
  out.append(chunk);
  out.append(R"(","rows":)");
  out.append(rows);
  out.append(R"(,"timelines":)");
  out.append(timelines);
  out.append("}");
  out.append(page.substr(data_at + kDataMarker.size(), js_at - data_at - kDataMarker.size()));
  out.append(kCompareJs);
  out.append(page.substr(js_at + kJsMarker.size(), runs_at - js_at - kJsMarker.size()));
  // The runs' own pages after the script, so that the page is drawn first.
  for (size_t i = 0; i < opt.runs.size(); ++i) {
    auto run = runPage(*opt.runs[i], opt.html);
    if (!run) return run.error();
    out.append(fmt::format(R"(<script type="application/json" id="run-page-{}">)", i));
    chunk.clear();
    appendScriptJson(chunk, *run);
    out.append(chunk);
    out.append("</script>\n");
  }
  out.append(page.substr(runs_at + kRunsMarker.size()));
  if (!out.flush()) {
    return systemError("cannot write the report", "check the output path and free space");
  }
  return {};
}

}  // namespace strobe::output
