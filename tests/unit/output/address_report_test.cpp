// report --by address in text, json and csv over the shared sample
// profile, with app::hot_loop()'s code range kept.
#include <gtest/gtest.h>

#include <string>

#include "../model/sample_profile.hpp"
#include "render.hpp"

namespace strobe::output {
namespace {

model::Profile profile() {
  model::Profile p = test::sampleProfile();
  model::FunctionCode c;
  c.module = 0;
  c.offset = c.address = 0x12f0;
  c.size = 0x40;
  for (model::FunctionId f = 0; f < p.functions().size(); ++f) {
    if (p.str(p.functions()[f].name) == "app::hot_loop()") c.function = f;
  }
  p.addCode(c);
  return p;
}

ReportOptions byAddress(uint64_t bucket) {
  ReportOptions opt;
  opt.by = model::GroupBy::kAddress;
  opt.bucket = bucket;
  opt.header = false;
  return opt;
}

TEST(AddressReportTest, TextTable) {
  std::string text = test::render(profile(), Format::kText, byAddress(1));
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            " SELF%  TOTAL%  SELF-TIME  ADDRESS               FUNCTION              LOCATION\n")
      << text;
  EXPECT_NE(text.find(" 40.0%   40.0%    40.0 ms  app+0x1300            app::hot_loop()+0x10  "
                      "compute.cpp:42\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" 10.0%   10.0%    10.0 ms  libc.so.6+0x9a0f0     libc.so.6+0x9a0f0     \n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("buckets"), std::string::npos) << text;
}

TEST(AddressReportTest, BucketsAndFilters) {
  ReportOptions opt = byAddress(16);
  opt.top = 2;
  std::string text = test::render(profile(), Format::kText, opt);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), "addresses in buckets of 16 bytes\n");
  EXPECT_NE(text.find(" 40.0%   40.0%    40.0 ms  app+0x1300"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << text;  // note, heading, 2 rows

  opt = byAddress(64);  // 0x1300 and 0x1310 share a bucket
  opt.filter.tids = {100};
  text = test::render(profile(), Format::kText, opt);
  EXPECT_NE(text.find(" 74.1%   74.1%    40.0 ms  app+0x1300"), std::string::npos) << text;
}

TEST(AddressReportTest, JsonAndCsvCarryTheAddress) {
  ReportOptions opt = byAddress(1);
  opt.top = 1;
  std::string json = test::render(profile(), Format::kJson, opt);
  EXPECT_NE(json.find("\"group_by\":\"address\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"app::hot_loop()+0x10\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"address\":\"app+0x1300\""), std::string::npos) << json;
  std::string csv = test::render(profile(), Format::kCsv, opt);
  EXPECT_EQ(csv,
            "rank,name,system_name,file,line,module,self_ns,self_samples,self_pct,total_ns,"
            "total_samples,total_pct,address\n"
            "1,app::hot_loop()+0x10,_ZN3app8hot_loopEv,/src/app/compute.cpp,42,app,40000000,40,"
            "40.000,40000000,40,40.000,app+0x1300\n");
  // Other groupings keep their columns.
  ReportOptions fn;
  fn.by = model::GroupBy::kFunction;
  fn.top = 1;
  EXPECT_EQ(test::render(profile(), Format::kCsv, fn).find("address"), std::string::npos);
}

}  // namespace
}  // namespace strobe::output
