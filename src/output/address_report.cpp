// The text table of `report --by address`: SELF% TOTAL% SELF-TIME ADDRESS
// FUNCTION LOCATION, one row per sampled address or aligned bucket.
#include <fmt/format.h>

#include <algorithm>

#include "model/address_table.hpp"
#include "output/text_report.hpp"

namespace strobe::output {
namespace {

constexpr size_t kMaxNameWidth = 60;

std::string fit(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void writeAddressTable(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  const model::Totals t = model::totals(p);
  std::vector<model::TopRow> rows =
      model::addressTable(p, std::span<const model::Sample>(p.samples()), opt.bucket);
  if (opt.threshold_pct > 0) {
    std::erase_if(rows, [&](const model::TopRow& r) {
      return sharePct(r.total, t.weight) < opt.threshold_pct;
    });
  }
  if (rows.size() > opt.top) rows.resize(opt.top);
  size_t address_width = std::string_view("ADDRESS").size();
  size_t name_width = std::string_view("FUNCTION").size();
  for (const auto& r : rows) {
    address_width = std::max(address_width, std::min(r.address.size(), kMaxNameWidth));
    name_width = std::max(name_width, std::min(r.function.size(), kMaxNameWidth));
  }
  const bool time = model::isTimeEvent(p.meta().event);
  const std::string_view unit = model::eventUnit(p.meta().event);
  if (opt.bucket > 1) fmt::print(out, "addresses in buckets of {} bytes\n", opt.bucket);
  fmt::print(out, "{:>6}  {:>6}  {:>9}  {:<{}}  {:<{}}  {}\n", "SELF%", "TOTAL%",
             time ? "SELF-TIME" : "SELF", "ADDRESS", address_width, "FUNCTION", name_width,
             "LOCATION");
  for (const auto& r : rows) {
    std::string location = r.file.empty() ? std::string()
                           : r.line == 0  ? baseName(r.file)
                                          : fmt::format("{}:{}", baseName(r.file), r.line);
    fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>9}  {:<{}}  {:<{}}  {}\n", sharePct(r.self, t.weight),
               sharePct(r.total, t.weight),
               time ? formatDuration(r.self) : fmt::format("{} {}", r.self, unit),
               fit(r.address, address_width), address_width, fit(r.function, name_width),
               name_width, location);
  }
  if (rows.empty()) fmt::print(out, "(no samples)\n");
}

}  // namespace strobe::output
