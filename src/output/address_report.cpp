// The text table of `report --by address`: SELF% TOTAL% SELF-TIME ADDRESS
// FUNCTION LOCATION, one row per sampled address or aligned bucket.
#include <fmt/format.h>

#include <algorithm>

#include "model/address_table.hpp"
#include "model/module_path.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"

namespace strobe::output {
namespace {}  // namespace

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
  size_t loc_width = 0;
  std::vector<std::string> locations;
  for (const auto& r : rows) {
    address_width = std::max(address_width, r.address.size());
    name_width = std::max(name_width, r.function.size());
    locations.push_back(r.file.empty() ? std::string()
                        : r.line == 0  ? std::string(model::baseName(r.file))
                                       : fmt::format("{}:{}", model::baseName(r.file), r.line));
    loc_width = std::max(loc_width, locations.back().size());
  }
  // As the other tables (text_width.hpp): whole in a file, else the
  // function's name gives way (at least 20 columns) for the terminal.
  if (opt.width != kNoWidthLimit) {
    const size_t fixed = 27 + 2 + address_width + 2 + 2 + loc_width;
    name_width =
        std::min(name_width, std::max<size_t>(opt.width > fixed ? opt.width - fixed : 0, 20));
  }
  const bool time = model::isTimeEvent(p.meta().event);
  const std::string_view unit = model::eventUnit(p.meta().event);
  if (opt.bucket > 1) fmt::print(out, "addresses in buckets of {} bytes\n", opt.bucket);
  fmt::print(out, "{:>6}  {:>6}  {:>9}  {:<{}}  {:<{}}  {}\n", "SELF%", "TOTAL%",
             time ? "SELF-TIME" : "SELF", "ADDRESS", address_width, "FUNCTION", name_width,
             "LOCATION");
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::TopRow& r = rows[i];
    std::string line =
        fmt::format("{:>5.1f}%  {:>5.1f}%  {:>9}  {:<{}}  {:<{}}  {}", sharePct(r.self, t.weight),
                    sharePct(r.total, t.weight),
                    time ? formatDuration(r.self) : fmt::format("{} {}", r.self, unit), r.address,
                    address_width, fitMiddle(r.function, name_width), name_width, locations[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  }
  if (rows.empty()) fmt::print(out, "(no samples)\n");
}

}  // namespace strobe::output
