// strobe diff as json and csv (docs/FORMATS.md, "strobe diff"): the rows the
// text table shows, every measure of each, with documented field names.
#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "output/diff_writers.hpp"
#include "output/table_fields.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

// Fields in the unit of the samples: "_ns" for time, "_count" for counts.
std::string suffix(const model::ProfileDiff& d) {
  return d.measure.time() ? "_ns" : "_count";
}

int64_t whole(double v) {
  return static_cast<int64_t>(std::llround(v));
}

// Rounded to 3 decimals as CSV prints it, so both give the same figures.
double rounded(double v) {
  return std::strtod(fmt::format("{:.3f}", v).c_str(), nullptr);
}

double sharePct(double part, double whole_value) {
  return whole_value > 0 ? 100.0 * part / whole_value : 0.0;
}

const char* noiseName(model::NoiseMethod m) {
  return m == model::NoiseMethod::kAcrossRuns ? "across-runs" : "batch-means";
}

// {"change_ns":..,"change_pct":..,"detectable_ns":..,"p":..,"tested":..,"verdict":..}
// as fields named PREFIX_..., and the two sides' values.
void measureFields(JsonWriter& w, const model::ProfileDiff& d, const model::DiffMeasure& m,
                   const std::string& what) {
  const std::string u = suffix(d);
  w.Key(("base_" + what + u).c_str());
  w.Int64(whole(m.base));
  w.Key(("new_" + what + u).c_str());
  w.Int64(whole(m.next));
  w.Key((what + "_change" + u).c_str());
  w.Int64(whole(m.change));
  w.Key((what + "_change_pct").c_str());
  if (std::isinf(m.changePct())) {
    w.Null();
  } else {
    w.Double(rounded(m.changePct()));
  }
  w.Key((what + "_detectable" + u).c_str());
  w.Int64(whole(m.detectable));
  w.Key((what + "_tested").c_str());
  w.Bool(m.tested);
  w.Key((what + "_p").c_str());
  w.Double(m.p);
  w.Key((what + "_verdict").c_str());
  jsonString(w, model::verdictName(m.verdict));
}

void runValues(JsonWriter& w, const model::ProfileDiff& d, const model::DiffRow& r, bool base) {
  const std::string u = suffix(d);
  w.StartObject();
  for (const auto& [what, m] : {std::pair{"self", &r.self}, std::pair{"total", &r.total}}) {
    w.Key((std::string(what) + u).c_str());
    w.StartArray();
    for (double v : base ? m->base_runs : m->next_runs) w.Int64(whole(v));
    w.EndArray();
  }
  w.EndObject();
}

void side(JsonWriter& w, const model::ProfileDiff& d, const model::DiffSide& s) {
  const std::string u = suffix(d);
  w.StartObject();
  w.Key("noise");
  jsonString(w, noiseName(s.method));
  w.Key("runs");
  w.StartArray();
  for (size_t r = 0; r < s.names.size(); ++r) {
    w.StartObject();
    w.Key("recording");
    jsonString(w, s.names[r]);
    w.Key("samples");
    w.Uint64(s.samples[r]);
    w.Key(("total" + u).c_str());
    w.Uint64(s.weight[r]);
    w.Key("duration_ns");
    w.Uint64(s.duration_ns[r]);
    if (d.options.normalize == model::Normalize::kSpan) {
      w.Key("spans");
      w.Uint64(s.spans[r]);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

std::string csvPct(const model::DiffMeasure& m) {
  return std::isinf(m.changePct()) ? std::string() : fmt::format("{:.3f}", m.changePct());
}

}  // namespace

Status writeDiffJson(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out) {
  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  const std::string u = suffix(d);
  w.StartObject();
  w.Key("format");
  jsonString(w, "strobe-diff");
  w.Key("version");
  w.Uint(1);
  w.Key("group_by");
  jsonString(w, model::groupByName(d.options.by));
  w.Key("view");
  jsonString(w, model::viewName(d.measure.view));
  w.Key("sample_type");
  jsonString(w, d.measure.type);
  w.Key("unit");
  jsonString(w, d.measure.unit);
  w.Key("normalize");
  jsonString(w, model::normalizeName(d.options));
  w.Key("scale");
  w.Double(d.scale);
  w.Key("min_change_pct");
  w.Double(d.options.min_change_pct);
  w.Key(("min_change" + u).c_str());
  w.Int64(whole(d.min_change));
  w.Key("fdr");
  w.Double(d.options.fdr);
  w.Key("tests");
  w.Uint64(d.tests);
  w.Key("base");
  side(w, d, d.base);
  w.Key("new");
  side(w, d, d.next);
  w.Key("total");
  w.StartObject();
  measureFields(w, d, d.total, "total");
  w.EndObject();
  w.Key("rows");
  w.StartArray();
  size_t rank = 0;
  for (const model::DiffRow* r : diffTableRows(d, opt)) {
    w.StartObject();
    w.Key("rank");
    w.Uint64(++rank);
    w.Key("name");
    jsonString(w, r->name);
    w.Key("system_name");
    jsonString(w, r->system_name);
    w.Key("file");
    jsonString(w, r->file);
    w.Key("line");
    w.Uint(r->line);
    w.Key("module");
    jsonString(w, r->module);
    w.Key("verdict");
    jsonString(w, model::verdictName(r->verdict));
    measureFields(w, d, r->self, "self");
    measureFields(w, d, r->total, "total");
    w.Key("base_self_share_pct");
    w.Double(rounded(sharePct(r->self.base, d.total.base)));
    w.Key("new_self_share_pct");
    w.Double(rounded(sharePct(r->self.next, d.total.next)));
    w.Key("share_change_pp");
    w.Double(rounded(sharePct(r->self.next, d.total.next) - sharePct(r->self.base, d.total.base)));
    w.Key("base_samples");
    w.Uint64(r->base_samples);
    w.Key("new_samples");
    w.Uint64(r->next_samples);
    w.Key("base_runs");
    runValues(w, d, *r, true);
    w.Key("new_runs");
    runValues(w, d, *r, false);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
  return {};
}

Status writeDiffCsv(const model::ProfileDiff& d, const DiffReportOptions& opt, std::FILE* out) {
  const std::string u = suffix(d);
  fmt::print(out,
             "rank,verdict,name,system_name,file,line,module,base_self{0},new_self{0},"
             "self_change{0},self_change_pct,self_detectable{0},self_p,self_verdict,"
             "base_total{0},new_total{0},total_change{0},total_change_pct,total_detectable{0},"
             "total_p,total_verdict,share_change_pp,base_samples,new_samples\n",
             u);
  size_t rank = 0;
  for (const model::DiffRow* r : diffTableRows(d, opt)) {
    fmt::print(out, "{},{},{},{},{},{},{},", ++rank, model::verdictName(r->verdict),
               csvField(r->name), csvField(r->system_name), csvField(r->file), r->line,
               csvField(r->module));
    for (const model::DiffMeasure* m : {&r->self, &r->total}) {
      fmt::print(out, "{},{},{},{},{},{:.6g},{},", whole(m->base), whole(m->next), whole(m->change),
                 csvPct(*m), whole(m->detectable), m->p, model::verdictName(m->verdict));
    }
    fmt::print(out, "{:.3f},{},{}\n",
               sharePct(r->self.next, d.total.next) - sharePct(r->self.base, d.total.base),
               r->base_samples, r->next_samples);
  }
  return {};
}

}  // namespace strobe::output
