#include "output/span_table.hpp"

#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/terminal_text.hpp"
#include "model/aggregate.hpp"
#include "output/table_fields.hpp"
#include "output/text_report.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

// Durations in the text table: "0" only when truly zero.
std::string dur(uint64_t ns) {
  if (ns > 0 && ns < 1000) return fmt::format("{} ns", ns);
  return formatDuration(ns);
}

void writeText(const model::Profile& p, const std::vector<model::SpanRow>& rows,
               const std::string& source, std::FILE* out) {
  fmt::print(out, "recording: {}\n", terminalSafe(source));
  fmt::print(out, "command:   {}\n", formatTarget(p.meta()));
  if (std::string s = spansLine(p); !s.empty()) fmt::print(out, "spans:     {}\n", s);
  fmt::print(out, "\n");
  if (rows.empty()) {
    fmt::print(out,
               "(no spans: they come from programs linked with libstrobe that call "
               "strobe_span_begin/strobe_span_end)\n");
    return;
  }
  // Span and function names are the program's bytes: no control characters
  // reach the terminal (base/terminal_text.hpp).
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const auto& r : rows) names.push_back(terminalSafe(r.name));
  size_t width = 4;
  for (const std::string& n : names) width = std::max(width, std::min<size_t>(n.size(), 40));
  fmt::print(out, "{:<{}}  {:>7}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", "SPAN",
             width, "COUNT", "TOTAL", "MEAN", "P50", "P90", "P99", "MAX", "CPU",
             "TOP FUNCTION INSIDE");
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::SpanRow& r = rows[i];
    std::string top = r.top_function.empty()
                          ? std::string("(no samples)")
                          : fmt::format("{} ({:.1f}%)", terminalSafe(r.top_function),
                                        sharePct(r.top_weight, r.weight));
    const std::string& n = names[i];
    std::string name = n.size() > width ? n.substr(0, width - 3) + "..." : n;
    fmt::print(out, "{:<{}}  {:>7}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", name,
               width, r.count, dur(r.total_ns), dur(r.mean_ns), dur(r.p50_ns), dur(r.p90_ns),
               dur(r.p99_ns), dur(r.max_ns), formatDuration(r.weight), top);
  }
  fmt::print(out,
             "\nCPU: what was sampled on a span's own thread while it was open (each sample "
             "once per name);\nTOP FUNCTION INSIDE: the function with the most self time "
             "there, and its share of it.\n");
}

void writeJson(const model::Profile& p, const std::vector<model::SpanRow>& rows,
               const std::string& source, std::FILE* out) {
  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.StartObject();
  w.Key("recording");
  jsonString(w, source);
  w.Key("dropped_spans");
  w.Uint64(p.meta().dropped_spans);
  w.Key("spans");
  w.StartArray();
  for (const auto& r : rows) {
    w.StartObject();
    w.Key("name");
    jsonString(w, r.name);
    w.Key("count");
    w.Uint64(r.count);
    for (const auto& [key, v] : {std::pair{"total_ns", r.total_ns},
                                 {"mean_ns", r.mean_ns},
                                 {"p50_ns", r.p50_ns},
                                 {"p90_ns", r.p90_ns},
                                 {"p99_ns", r.p99_ns},
                                 {"max_ns", r.max_ns},
                                 {"cpu_ns", r.weight},
                                 {"cpu_samples", r.samples}}) {
      w.Key(key);
      w.Uint64(v);
    }
    w.Key("top_function");
    jsonString(w, r.top_function);
    w.Key("top_function_self_ns");
    w.Uint64(r.top_weight);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
}

void writeCsv(const std::vector<model::SpanRow>& rows, std::FILE* out) {
  fmt::print(out,
             "name,count,total_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns,cpu_ns,cpu_samples,"
             "top_function,top_function_self_ns\n");
  for (const auto& r : rows) {
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{}\n", csvField(r.name), r.count, r.total_ns,
               r.mean_ns, r.p50_ns, r.p90_ns, r.p99_ns, r.max_ns, r.weight, r.samples,
               csvField(r.top_function), r.top_weight);
  }
}

}  // namespace

Status writeSpanTable(const model::Profile& p, SpanTableFormat f, bool no_inline,
                      const std::string& source, std::FILE* out) {
  std::vector<model::SpanRow> rows = model::spanTable(p, no_inline);
  switch (f) {
    case SpanTableFormat::kText:
      writeText(p, rows, source, out);
      break;
    case SpanTableFormat::kJson:
      writeJson(p, rows, source, out);
      break;
    case SpanTableFormat::kCsv:
      writeCsv(rows, out);
      break;
  }
  return {};
}

std::string spansLine(const model::Profile& p) {
  const uint64_t dropped = p.meta().dropped_spans;
  if (p.spans().empty() && dropped == 0) return {};
  std::set<model::StringId> names;
  for (const model::Span& s : p.spans()) names.insert(s.name);
  std::string line = fmt::format("{} recorded ({} {}), {} dropped", p.spans().size(), names.size(),
                                 names.size() == 1 ? "name" : "names", dropped);
  if (dropped > 0) {
    line +=
        " (the program's span buffer was full, spans nested deeper than 64, or no buffer "
        "was free for a thread)";
  }
  return line;
}

std::string spanSelectionLine(const model::Profile& p, const model::SpanSelection& s) {
  std::vector<uint32_t> picked = model::selectSpans(p, s);
  size_t all = 0;
  for (const model::Span& x : p.spans()) all += p.str(x.name) == s.name ? 1 : 0;
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  std::set<int32_t> tids;
  for (uint32_t i : picked) {
    const model::Span& x = p.spans()[i];
    lo = std::min(lo, x.end_ns - x.start_ns);
    hi = std::max(hi, x.end_ns - x.start_ns);
    tids.insert(x.tid);
  }
  std::string which = fmt::format("all {}", all);
  if (s.slowest && s.longer_than_ns) {
    which = fmt::format("the {} slowest longer than {} of {}", picked.size(),
                        formatDuration(*s.longer_than_ns), all);
  } else if (s.slowest) {
    which = fmt::format("the {} slowest of {}", picked.size(), all);
  } else if (s.longer_than_ns) {
    which = fmt::format("the {} longer than {} of {}", picked.size(),
                        formatDuration(*s.longer_than_ns), all);
  }
  std::string line = fmt::format("{} '{}' spans", which, terminalSafe(s.name));
  if (!picked.empty()) {
    line += fmt::format(" ({} to {}, on {} {})", dur(lo), dur(hi), tids.size(),
                        tids.size() == 1 ? "thread" : "threads");
  }
  return line + ": samples on a span's thread while it was open";
}

}  // namespace strobe::output
