// The text report's views: --tree, --by file|module|thread, --no-inline,
// --threshold, --callers / --callees, and filters through writeFormat.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "output/format.hpp"
#include "render.hpp"
#include "synth_profile.hpp"

namespace strobe::output {
namespace {

std::string render(const ReportOptions& opt) {
  static model::Profile p = strobe::test::synthProfile(3000, false);
  ReportOptions o = opt;
  o.header = false;
  return test::render(p, Format::kText, o);
}

using test::lines;

TEST(TextTree, ChildrenNeverExceedParentsAndSelfAddsUp) {
  ReportOptions opt;
  opt.tree = true;
  opt.threshold_pct = 0;
  auto ls = lines(render(opt));
  ASSERT_GE(ls.size(), 3u);
  EXPECT_EQ(ls[0], "TOTAL%   SELF%  TOTAL-TIME  CALL TREE");
  // Each line: TOTAL% SELF% TIME(2 tokens) then the indented name at col 30.
  struct Node {
    double total, self;
    size_t depth;
  };
  std::vector<Node> nodes;
  for (size_t i = 1; i < ls.size(); ++i) {
    Node n{std::stod(ls[i].substr(0, 6)), std::stod(ls[i].substr(8, 6)), 0};
    std::string name = ls[i].substr(28);
    n.depth = name.find_first_not_of(' ') / 2;
    nodes.push_back(n);
  }
  EXPECT_DOUBLE_EQ(nodes[0].total, 100.0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    double children = 0;
    for (size_t j = i + 1; j < nodes.size() && nodes[j].depth > nodes[i].depth; ++j) {
      if (nodes[j].depth == nodes[i].depth + 1) {
        EXPECT_LE(nodes[j].total, nodes[i].total + 1e-9) << ls[j + 1];
        children += nodes[j].total;
      }
    }
    EXPECT_NEAR(nodes[i].self + children, nodes[i].total, 0.35) << ls[i + 1];
  }
}

TEST(TextTree, MarksInlinedFramesAndPrunesByThreshold) {
  ReportOptions opt;
  opt.tree = true;
  std::string out = render(opt);
  EXPECT_NE(out.find("synth::helper(int) [inlined]"), std::string::npos);
  opt.threshold_pct = 10;
  out = render(opt);
  EXPECT_EQ(out.find("libc.so.6"), std::string::npos) << "3.3% nodes are below 10%";
  EXPECT_NE(out.find("synth::hot_loop()"), std::string::npos);
}

TEST(TextTable, GroupByFileModuleThread) {
  ReportOptions opt;
  opt.by = model::GroupBy::kThread;
  std::string out = render(opt);
  EXPECT_NE(out.find("THREAD"), std::string::npos);
  // A third of the samples each; each thread busy the whole recording
  // (1000 samples of 1.001 ms in 1.002 s): CPU% instead of a TOTAL% that
  // would repeat SELF%.
  EXPECT_NE(out.find(" SELF%    CPU%"), std::string::npos) << out;
  EXPECT_NE(out.find(" 33.3%   99.9%  "), std::string::npos) << out;
  EXPECT_NE(out.find("worker-2 (1002)"), std::string::npos);
  opt.by = model::GroupBy::kModule;
  out = render(opt);
  EXPECT_NE(out.find(" 95.0%  100.0%"), std::string::npos);
  EXPECT_NE(out.find("libc.so.6"), std::string::npos);
  // The modules' paths fill LOCATION.
  EXPECT_NE(out.find("synth      /opt/synth/bin/synth\n"), std::string::npos) << out;
  EXPECT_NE(out.find("libc.so.6  /usr/lib/x86_64-linux-gnu/libc.so.6\n"), std::string::npos) << out;
  opt.by = model::GroupBy::kFile;
  out = render(opt);
  EXPECT_NE(out.find(" 60.0%   90.0%"), std::string::npos);
  EXPECT_NE(out.find("/src/synth/compute.cpp"), std::string::npos);
}

TEST(TextTable, NoInlineFoldsHelperIntoCompute) {
  ReportOptions opt;
  opt.no_inline = true;
  std::string out = render(opt);
  EXPECT_EQ(out.find("synth::helper(int)"), std::string::npos);
  EXPECT_NE(out.find(" 30.0%   90.0%"), std::string::npos) << out;  // compute: 10% + 20%
}

TEST(TextTable, FiltersNarrowTheSamples) {
  ReportOptions opt;
  opt.filter.threads = {"worker-*"};
  opt.by = model::GroupBy::kThread;
  std::string out = render(opt);
  EXPECT_EQ(out.find("main (1000)"), std::string::npos);
  EXPECT_NE(out.find(" 50.0%   99.9%"), std::string::npos) << out;
}

TEST(TextCallers, SharesOfTheFunction) {
  ReportOptions opt;
  opt.callers = "synth::compute(int)";
  std::string out = render(opt);
  EXPECT_NE(out.find("callers of synth::compute(int) (compute.cpp:20) (90.0% of all"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  worker_main(void*) (main.cpp:30)\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" 66.7%   60.0%"), std::string::npos) << out;
  opt.callers.clear();
  opt.callees = "synth::compute(int)";
  out = render(opt);
  EXPECT_NE(out.find(" 55.6%   50.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("(self)"), std::string::npos);
}

TEST(TextCallers, UnknownFunctionIsAUsageError) {
  static model::Profile p = test::synthProfile(30, false);
  ReportOptions opt;
  opt.callers = "no_such_function";
  std::FILE* devnull = std::fopen("/dev/null", "w");
  Status st = writeFormat(p, Format::kText, opt, devnull);
  std::fclose(devnull);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "no function matches 'no_such_function'");
}

}  // namespace
}  // namespace strobe::output
