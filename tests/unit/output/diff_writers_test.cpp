// strobe diff's writers (output/diff_writers.hpp) on the comparison of two
// synthetic recordings whose change is known (strobe-synth's small profile
// and its --changed run: synth::hot_loop() 50% slower, synth::helper(int)
// 50% faster, the hostile function gone): what each format says of it, its
// fields, and that names stay text everywhere.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>

#include "model/diff.hpp"
#include "model/diff_tree.hpp"
#include "output/diff_writers.hpp"
#include "pprof_decode.hpp"
#include "synth_profile.hpp"

namespace strobe::test {
namespace {

class DiffWritersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = synthProfile(6000, false);
    next_ = synthChangedProfile(6000);
    runs_ = {{&base_, base_.samples(), "base.db", {}}, {&next_, next_.samples(), "new.db", {}}};
    auto d = model::diffProfiles(std::span(runs_).first(1), std::span(runs_).subspan(1), {});
    ASSERT_TRUE(d.ok()) << d.error().describe();
    diff_ = std::move(*d);
    auto t = model::diffTree(std::span(runs_).first(1), std::span(runs_).subspan(1), {}, diff_);
    ASSERT_TRUE(t.ok()) << t.error().describe();
    tree_ = std::move(*t);
  }

  std::string render(output::Format f, output::DiffReportOptions opt = {}) {
    char* buf = nullptr;
    size_t len = 0;
    std::FILE* file = open_memstream(&buf, &len);
    Status st = output::writeDiff(diff_, &tree_, f, opt, file);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().describe());
    std::fclose(file);
    std::string s(buf, len);
    std::free(buf);
    return s;
  }

  model::Profile base_;
  model::Profile next_;
  std::vector<model::DiffRun> runs_;
  model::ProfileDiff diff_;
  model::DiffTree tree_;
};

TEST_F(DiffWritersTest, TextHeaderAndRows) {
  const std::string text = render(output::Format::kText);
  EXPECT_NE(text.find("base:       base.db; 6.01 s CPU in 6000 samples\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("new:        new.db; 6.61 s CPU in 6600 samples\n"), std::string::npos);
  EXPECT_NE(text.find("compared:   CPU time per run\n"), std::string::npos);
  EXPECT_NE(text.find("noise:      each side's from batch means over blocks of time within the "
                      "run; Welch's t; Benjamini-Hochberg at a 1% false discovery rate over "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--min-change 1% of the base's total (60.1 ms)"), std::string::npos);
  {
    // Several runs on both sides: their spreads are pooled (model/diff_stats.hpp).
    model::ProfileDiff runs = diff_;
    for (model::DiffSide* side : {&runs.base, &runs.next}) {
      // Three runs a side, each as the one of the fixture.
      side->method = model::NoiseMethod::kAcrossRuns;
      side->names = {"1.db", "2.db", "3.db"};
      for (auto* per_run : {&side->samples, &side->weight, &side->spans, &side->duration_ns}) {
        per_run->assign(3, per_run->front());
      }
    }
    std::swap(runs, diff_);
    const std::string pooled = render(output::Format::kText);
    std::swap(runs, diff_);
    EXPECT_NE(pooled.find("noise:      each side's from the spread across its 3 runs; Student's t "
                          "on both sides' spreads pooled; Benjamini-Hochberg at a 1% "),
              std::string::npos)
        << pooled;
  }
  EXPECT_NE(text.find("total:      6.01 s -> 6.61 s, +600.6 ms (+10.0%): slower\n"),
            std::string::npos);
  // The largest change first: hot_loop's 1.50 s more.
  const std::regex first(
      "\nVERDICT +SELF-BASE +SELF-NEW +CHANGE +CHANGE% +NOISE +SHARE +TOTAL-BASE +TOTAL-NEW "
      "+TOTAL% "
      "+FUNCTION +LOCATION\nslower +3\\.00 s +4\\.50 s +\\+1\\.50 s +\\+50\\.0% +\\+-[0-9.]+ m?s +"
      "\\+18\\.2pp +3\\.00 s +4\\.50 s +\\+50\\.0% +synth::hot_loop\\(\\) +compute\\.cpp:40\n"
      "faster +1\\.20 s +600\\.6 ms +-600\\.6 ms +-50\\.0% ");
  EXPECT_TRUE(std::regex_search(text, first)) << text;
  // --top cuts, and says what it left out.
  output::DiffReportOptions top;
  top.top = 2;
  EXPECT_NE(render(output::Format::kText, top)
                .find("(5 more rows, 4 of them not same; --top 0 "
                      "shows all)\n"),
            std::string::npos);
}

TEST_F(DiffWritersTest, JsonRows) {
  rapidjson::Document d;
  const std::string json = render(output::Format::kJson);
  d.Parse(json.c_str());
  ASSERT_FALSE(d.HasParseError()) << json;
  EXPECT_STREQ(d["format"].GetString(), "strobe-diff");
  EXPECT_STREQ(d["normalize"].GetString(), "none");
  EXPECT_EQ(d["base"]["runs"][0]["samples"].GetUint64(), 6000u);
  EXPECT_STREQ(d["total"]["total_verdict"].GetString(), "slower");
  const auto& rows = d["rows"];
  ASSERT_GE(rows.Size(), 3u);
  const auto& hot = rows[0];
  EXPECT_STREQ(hot["name"].GetString(), "synth::hot_loop()");
  EXPECT_STREQ(hot["module"].GetString(), "synth");
  EXPECT_STREQ(hot["verdict"].GetString(), "slower");
  for (const char* field : {"base_self_ns", "new_self_ns", "base_total_ns", "new_total_ns"}) {
    EXPECT_TRUE(hot.HasMember(field)) << field;
  }
  // Half of the 6,000 samples of 1,001,001 ns, and half as many again.
  EXPECT_EQ(hot["base_self_ns"].GetInt64(), 3000 * 1'001'001LL);
  EXPECT_EQ(hot["new_self_ns"].GetInt64(), 4500 * 1'001'001LL);
  EXPECT_NEAR(hot["self_change_pct"].GetDouble(), 50.0, 0.1);
  EXPECT_EQ(hot["base_runs"]["self_ns"].Size(), 1u);
  // The vanished function: -100%; a function new in the new run has a null percentage.
  const auto& gone = rows[2];
  EXPECT_STREQ(gone["name"].GetString(), kHostileName);
  EXPECT_EQ(gone["new_self_ns"].GetInt64(), 0);
  EXPECT_EQ(gone["self_change_pct"].GetDouble(), -100.0);
}

TEST_F(DiffWritersTest, CsvHeaderAndEscaping) {
  const std::string csv = render(output::Format::kCsv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,verdict,name,system_name,file,line,module,base_self_ns,new_self_ns,"
            "self_change_ns,self_change_pct,self_detectable_ns,self_p,self_verdict,base_total_ns,"
            "new_total_ns,total_change_ns,total_change_pct,total_detectable_ns,total_p,"
            "total_verdict,share_change_pp,base_samples,new_samples");
  EXPECT_NE(csv.find("\n1,slower,synth::hot_loop(),_ZN5synth8hot_loopEv,"), std::string::npos);
  // The hostile name is quoted, its quote doubled.
  EXPECT_NE(csv.find(",faster,\"<script>alert(1)</script>&\"\"'\",hostile,"), std::string::npos)
      << csv;
}

TEST_F(DiffWritersTest, FlamegraphColoursAndEscapes) {
  const std::string svg = render(output::Format::kFlamegraph);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      svg, m,
      std::regex("<g [^>]*data-name=\"synth::hot_loop\\(\\)\" data-verdict=\"slower\"[^>]*>"
                 "<title>[^<]*</title><rect [^>]*fill=\"rgb\\(255,(\\d+),(\\d+)\\)\"")));
  EXPECT_EQ(m[1], m[2]);
  ASSERT_TRUE(
      std::regex_search(svg, m,
                        std::regex("data-name=\"synth::helper\\(int\\)\" data-verdict="
                                   "\"faster\"[^>]*>.*?fill=\"rgb\\((\\d+),\\d+,255\\)\"")));
  EXPECT_TRUE(std::regex_search(svg, std::regex("data-name=\"libc.so.6\\+0x9a0f0\" data-verdict="
                                                "\"same\"[^>]*>.*?fill=\"rgb\\(218,218,212\\)\"")));
  // The vanished hostile function: drawn from the base, dashed, escaped.
  EXPECT_NE(svg.find("data-name=\"&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\" "
                     "data-verdict=\"faster\""),
            std::string::npos);
  EXPECT_NE(svg.find("class=\"base-only\""), std::string::npos);
  EXPECT_EQ(svg.find("<script>alert"), std::string::npos);
}

TEST_F(DiffWritersTest, PprofValuesAreNewMinusBase) {
  const PbProfile p = decodePprof(render(output::Format::kPprof));
  ASSERT_EQ(p.sample_types.size(), 1u);
  EXPECT_EQ(p.s(p.sample_types[0].type), "cpu");
  EXPECT_EQ(p.s(p.sample_types[0].unit), "nanoseconds");
  // Flat per function: the sum of samples whose leaf is it.
  std::map<std::string, int64_t> flat;
  for (const PbSample& s : p.samples) {
    const PbLocation& leaf = p.locations.at(s.locations.front());
    const std::string name = leaf.lines.empty()
                                 ? "[" + p.s(p.mappings.at(leaf.mapping).filename) + "]"
                                 : p.s(p.functions.at(leaf.lines.front().function).name);
    flat[name] += s.values.at(0);
  }
  for (const model::DiffRow& r : diff_.rows) {
    const std::string name =
        r.name.find("+0x") != std::string::npos ? "[" + r.module + "]" : r.name;
    EXPECT_EQ(flat[name], std::llround(r.self.change)) << r.name;
  }
  for (const auto& [id, fn] : p.functions) {
    if (p.s(fn.name) == "synth::hot_loop()") {
      EXPECT_EQ(p.s(fn.system_name), "_ZN5synth8hot_loopEv");
    }
  }
}

// An inlined frame shares its caller's location, leaf first, as in
// report's pprof: pprof then marks it "(inline)" in both profiles alike.
TEST_F(DiffWritersTest, PprofKeepsInlineChainsInOneLocation) {
  const PbProfile p = decodePprof(render(output::Format::kPprof));
  auto fname = [&](const PbLine& l) { return p.s(p.functions.at(l.function).name); };
  int chains = 0;
  for (const auto& [id, loc] : p.locations) {
    for (size_t i = 0; i < loc.lines.size(); ++i) {
      if (fname(loc.lines[i]) != "synth::helper(int)") continue;
      ASSERT_EQ(loc.lines.size(), 2u) << "helper(int) alone in location " << id;
      EXPECT_EQ(i, 0u);
      EXPECT_EQ(fname(loc.lines[1]), "synth::compute(int)");
      ++chains;
    }
  }
  EXPECT_EQ(chains, 1);
  // A sample whose leaf is that location has compute(int)'s caller next,
  // not compute(int) again.
  for (const PbSample& s : p.samples) {
    const PbLocation& leaf = p.locations.at(s.locations.front());
    if (leaf.lines.size() != 2 || s.locations.size() < 2) continue;
    const PbLocation& next = p.locations.at(s.locations[1]);
    ASSERT_FALSE(next.lines.empty());
    EXPECT_NE(fname(next.lines.back()), "synth::compute(int)");
  }
}

TEST_F(DiffWritersTest, ComparePageCarriesBothRunsAsText) {
  output::DiffReportOptions opt;
  opt.runs = {&base_, &next_};
  const std::string html = render(output::Format::kHtml, opt);
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"strobe-diff\">{\"format\":\"strobe-"
                      "diff-html\",\"version\":1,"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"run-page-0\">\"\\u003c!DOCTYPE html\\u003e"), std::string::npos);
  EXPECT_NE(html.find("id=\"run-page-1\">\"\\u003c!DOCTYPE html\\u003e"), std::string::npos);
  // No name can end a script element: the hostile one is \u003c-escaped,
  // in the runs' pages twice over.
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"), std::string::npos);
  // Every script element is one of the page's own: the data, the code, two runs.
  size_t scripts = 0;
  for (size_t at = 0; (at = html.find("<script", at)) != std::string::npos; ++at) ++scripts;
  EXPECT_EQ(scripts, 4u);
}

TEST_F(DiffWritersTest, FormatsWithoutADiffForm) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* file = open_memstream(&buf, &len);
  Status st = output::writeDiff(diff_, &tree_, output::Format::kSpeedscope, {}, file);
  std::fclose(file);
  std::free(buf);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "strobe diff has no speedscope form");
  EXPECT_FALSE(output::hasDiffForm(output::Format::kFolded));
  EXPECT_TRUE(output::hasDiffForm(output::Format::kPprof));
}

}  // namespace
}  // namespace strobe::test
