#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <cstdlib>

#include "model/address_table.hpp"
#include "model/measure.hpp"
#include "output/json_writers.hpp"
#include "output/table_fields.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

double pct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// A share rounded to 3 decimals exactly as CSV prints it ("{:.3f}"), so
// JSON and CSV give the same figures (RapidJSON's decimal limit would cut,
// not round). RapidJSON prints the shortest form of the double, which for
// a value read from 3 decimals is those decimals.
double rounded(double pct) {
  return std::strtod(fmt::format("{:.3f}", pct).c_str(), nullptr);
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
  w.StartObject();
  w.Key("recording");
  jsonString(w, opt.source);
  w.Key("group_by");
  std::string_view by = model::groupByName(opt.by);
  w.String(by.data(), static_cast<rapidjson::SizeType>(by.size()));
  w.Key("event");
  jsonString(w, p.meta().event);
  w.Key("view");
  jsonString(w, std::string(model::viewName(m.view)));
  w.Key("sample_type");
  jsonString(w, m.type);
  w.Key("unit");
  jsonString(w, m.unit);
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
    jsonString(w, r.function);
    w.Key("system_name");
    jsonString(w, r.system_name);
    w.Key("file");
    jsonString(w, r.file);
    w.Key("line");
    w.Uint(r.line);
    w.Key("module");
    jsonString(w, r.module);
    w.Key(self_key.c_str());
    w.Uint64(r.self);
    w.Key("self_samples");
    w.Uint64(r.self_samples);
    w.Key("self_pct");
    w.Double(rounded(pct(r.self, t.weight)));
    w.Key(total_key.c_str());
    w.Uint64(r.total);
    w.Key("total_samples");
    w.Uint64(r.total_samples);
    w.Key("total_pct");
    w.Double(rounded(pct(r.total, t.weight)));
    if (opt.by == model::GroupBy::kAddress) {
      w.Key("address");
      jsonString(w, r.address);
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
