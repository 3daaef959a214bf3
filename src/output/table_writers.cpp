#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include "model/address_table.hpp"
#include "model/measure.hpp"
#include "output/json_writers.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

void str(JsonWriter& w, const std::string& s) {
  std::string scratch;
  std::string_view v = validUtf8(s, scratch);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

double pct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// RFC 4180: quote fields with a comma, quote or line break; double quotes.
// Fields starting with = + - @ are prefixed with ' so spreadsheets do not
// run them as formulas.
std::string csvField(const std::string& s) {
  std::string v = s;
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v = "'" + v;
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::vector<model::TopRow> tableRows(const model::Profile& p, const TableOptions& opt,
                                     uint64_t total_weight) {
  std::vector<model::TopRow> rows =
      opt.by == model::GroupBy::kAddress
          ? model::addressTable(p, std::span<const model::Sample>(p.samples()), opt.bucket)
          : model::topTable(p, opt.by, opt.no_inline);
  if (opt.threshold_pct > 0) {
    std::erase_if(rows, [&](const model::TopRow& r) {
      return pct(r.total, total_weight) < opt.threshold_pct;
    });
  }
  if (opt.top != 0 && rows.size() > opt.top) rows.resize(opt.top);
  return rows;
}

namespace {

// The suffix of weight fields: "ns" for time views, "count" for counts of
// an event (model/measure.hpp).
std::string weightSuffix(const model::Measure& m) {
  return m.time() ? "ns" : "count";
}

}  // namespace

Status writeJsonTable(const model::Profile& p, const TableOptions& opt, std::FILE* out) {
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows = tableRows(p, opt, t.weight);
  const model::Measure m = model::measureOf(p);
  const std::string self_key = "self_" + weightSuffix(m);
  const std::string total_key = "total_" + weightSuffix(m);
  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.SetMaxDecimalPlaces(3);
  w.StartObject();
  w.Key("recording");
  str(w, opt.source);
  w.Key("group_by");
  std::string_view by = model::groupByName(opt.by);
  w.String(by.data(), static_cast<rapidjson::SizeType>(by.size()));
  w.Key("event");
  str(w, p.meta().event);
  w.Key("view");
  str(w, std::string(model::viewName(m.view)));
  w.Key("sample_type");
  str(w, m.type);
  w.Key("unit");
  str(w, m.unit);
  w.Key("duration_ns");
  w.Uint64(p.meta().duration_ns);
  w.Key(total_key.c_str());
  w.Uint64(t.weight);
  w.Key("total_samples");
  w.Uint64(t.samples);
  w.Key("lost_samples");
  w.Uint64(p.meta().lost_samples);
  w.Key("threads");
  w.Uint64(t.threads);
  w.Key("rows");
  w.StartArray();
  size_t rank = 0;
  for (const model::TopRow& r : rows) {
    w.StartObject();
    w.Key("rank");
    w.Uint64(++rank);
    w.Key("name");
    str(w, r.function);
    w.Key("system_name");
    str(w, r.system_name);
    w.Key("file");
    str(w, r.file);
    w.Key("line");
    w.Uint(r.line);
    w.Key("module");
    str(w, r.module);
    w.Key(self_key.c_str());
    w.Uint64(r.self);
    w.Key("self_samples");
    w.Uint64(r.self_samples);
    w.Key("self_pct");
    w.Double(pct(r.self, t.weight));
    w.Key(total_key.c_str());
    w.Uint64(r.total);
    w.Key("total_samples");
    w.Uint64(r.total_samples);
    w.Key("total_pct");
    w.Double(pct(r.total, t.weight));
    if (opt.by == model::GroupBy::kAddress) {
      w.Key("address");
      str(w, r.address);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
  return {};
}

Status writeCsvTable(const model::Profile& p, const TableOptions& opt, std::FILE* out) {
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows = tableRows(p, opt, t.weight);
  const bool by_address = opt.by == model::GroupBy::kAddress;
  const std::string unit = weightSuffix(model::measureOf(p));
  fmt::print(out,
             "rank,name,system_name,file,line,module,self_{0},self_samples,self_pct,total_{0},"
             "total_samples,total_pct{1}\n",
             unit, by_address ? ",address" : "");
  size_t rank = 0;
  for (const model::TopRow& r : rows) {
    fmt::print(out, "{},{},{},{},{},{},{},{},{:.3f},{},{},{:.3f}", ++rank, csvField(r.function),
               csvField(r.system_name), csvField(r.file), r.line, csvField(r.module), r.self,
               r.self_samples, pct(r.self, t.weight), r.total, r.total_samples,
               pct(r.total, t.weight));
    fmt::print(out, "{}\n", by_address ? "," + csvField(r.address) : std::string());
  }
  return {};
}

}  // namespace strobe::output
