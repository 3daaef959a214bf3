// The folded, flame graph, speedscope, chrome, json and csv writers, on the
// synthetic profile (known shares, inline chains, a hostile function name).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "model/aggregate.hpp"
#include "output/format.hpp"
#include "output/utf8.hpp"
#include "output/xml_escape.hpp"
#include "render.hpp"
#include "synth_profile.hpp"

namespace strobe::output {
namespace {

using test::render;

const model::Profile& synth() {
  static model::Profile p = test::synthProfile(3000, false);
  return p;
}

TEST(Folded, ParsesBackToTheTextReportTotals) {
  const model::Profile& p = synth();
  std::istringstream in(render(p, Format::kFolded));
  std::string line;
  uint64_t sum = 0;
  std::map<std::string, uint64_t> leaf_self;
  while (std::getline(in, line)) {
    auto sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos) << line;
    uint64_t v = std::stoull(line.substr(sp + 1));
    sum += v;
    std::string stack = line.substr(0, sp);
    auto semi = stack.rfind(';');
    leaf_self[semi == std::string::npos ? stack : stack.substr(semi + 1)] += v;
  }
  EXPECT_EQ(sum, model::totals(p).weight);
  for (const model::TopRow& r : model::topTable(p, model::GroupBy::kFunction)) {
    EXPECT_EQ(leaf_self[r.function], r.self) << r.function;
  }
}

TEST(Folded, PerThreadRootsAtThreadNames) {
  ReportOptions opt;
  opt.per_thread = true;
  std::string out = render(synth(), Format::kFolded, opt);
  EXPECT_NE(out.find("worker-1 (1001);worker_main(void*);synth::compute(int);synth::hot_loop() "),
            std::string::npos);
  EXPECT_NE(out.find("main (1000);main;"), std::string::npos);
}

TEST(Folded, NoInlineFoldsIntoTheCaller) {
  ReportOptions opt;
  opt.no_inline = true;
  std::string out = render(synth(), Format::kFolded, opt);
  EXPECT_EQ(out.find("synth::helper(int)"), std::string::npos);
  EXPECT_NE(render(synth(), Format::kFolded).find("synth::compute(int);synth::helper(int) "),
            std::string::npos);
}

TEST(Flamegraph, EscapesNamesAndCarriesTheViewer) {
  std::string svg = render(synth(), Format::kFlamegraph);
  EXPECT_EQ(svg.find("<script>alert"), std::string::npos) << "a name reached the SVG raw";
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"), std::string::npos);
  EXPECT_NE(svg.find("function search("), std::string::npos);
  EXPECT_NE(svg.find("function zoom("), std::string::npos);
  EXPECT_NE(svg.find("Reset Zoom"), std::string::npos);
  EXPECT_NE(svg.find("synth::helper(int) [inlined] ("), std::string::npos);
  // Hover text: name, samples, share and CPU time.
  EXPECT_NE(svg.find("synth::hot_loop() (1000 samples, 33.33%, 1.00 s CPU)"), std::string::npos);
}

TEST(Json, TopTableRoundTripsNamesAndShares) {
  std::string out = render(synth(), Format::kJson);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(std::string(d["group_by"].GetString()), "function");
  EXPECT_EQ(d["total_samples"].GetUint64(), 3000u);
  const auto& rows = d["rows"];
  ASSERT_GE(rows.Size(), 6u);
  EXPECT_EQ(std::string(rows[0]["name"].GetString()), "synth::hot_loop()");
  EXPECT_NEAR(rows[0]["self_pct"].GetDouble(), 50.0, 0.01);
  bool hostile = false;
  for (const auto& r : rows.GetArray()) {
    if (std::string(r["name"].GetString()) == test::kHostileName) hostile = true;
    for (const char* k : {"rank", "name", "system_name", "file", "line", "module", "self_ns",
                          "self_samples", "self_pct", "total_ns", "total_samples", "total_pct"}) {
      EXPECT_TRUE(r.HasMember(k)) << k;
    }
  }
  EXPECT_TRUE(hostile);
  EXPECT_NE(out.find(R"("<script>alert(1)</script>&\"'")"), std::string::npos);
}

TEST(Csv, QuotesFieldsThatNeedIt) {
  std::string out = render(synth(), Format::kCsv);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "rank,name,system_name,file,line,module,self_ns,self_samples,self_pct,total_ns,"
            "total_samples,total_pct");
  EXPECT_NE(out.find(R"(,"<script>alert(1)</script>&""'",hostile,)"), std::string::npos);
  EXPECT_NE(out.find("\n1,synth::hot_loop(),_ZN5synth8hot_loopEv,"), std::string::npos);
}

TEST(Csv, ThresholdAndTopTrimRows) {
  ReportOptions opt;
  opt.threshold_pct = 15;
  opt.top = 0;
  std::string out = render(synth(), Format::kCsv, opt);
  // Totals >= 15%: hot_loop 50, helper 20, compute 90, worker_main 70, main 30.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 6);
}

TEST(Speedscope, OneWeightedProfilePerThread) {
  std::string out = render(synth(), Format::kSpeedscope);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  const auto& frames = d["shared"]["frames"];
  const auto& profiles = d["profiles"];
  ASSERT_EQ(profiles.Size(), 3u);
  EXPECT_EQ(std::string(profiles[0]["name"].GetString()), "main (1000)");
  EXPECT_EQ(std::string(profiles[1]["name"].GetString()), "worker-1 (1001)");
  uint64_t total = 0;
  for (const auto& prof : profiles.GetArray()) {
    EXPECT_EQ(std::string(prof["type"].GetString()), "sampled");
    EXPECT_EQ(std::string(prof["unit"].GetString()), "nanoseconds");
    ASSERT_EQ(prof["samples"].Size(), prof["weights"].Size());
    uint64_t sum = 0;
    for (const auto& w : prof["weights"].GetArray()) sum += w.GetUint64();
    EXPECT_EQ(sum, prof["endValue"].GetUint64());
    total += sum;
    for (const auto& s : prof["samples"].GetArray()) {
      for (const auto& f : s.GetArray()) ASSERT_LT(f.GetUint(), frames.Size());
    }
  }
  EXPECT_EQ(total, model::totals(synth()).weight);
  // Root first: main's samples start at "main".
  uint32_t first = profiles[0]["samples"][0][0].GetUint();
  EXPECT_EQ(std::string(frames[first]["name"].GetString()), "main");
}

TEST(Chrome, NamedTracksWithNestedSpans) {
  std::string out = render(synth(), Format::kChrome);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  std::map<int, std::string> names;
  // Per thread, X events must nest: a span never straddles another's end.
  std::map<int, std::vector<std::pair<double, double>>> spans;
  double hot = 0;
  for (const auto& e : d["traceEvents"].GetArray()) {
    std::string ph = e["ph"].GetString();
    if (ph == "M" && std::string(e["name"].GetString()) == "thread_name") {
      names[e["tid"].GetInt()] = e["args"]["name"].GetString();
    }
    if (ph == "X") {
      double ts = e["ts"].GetDouble(), dur = e["dur"].GetDouble();
      EXPECT_GE(dur, 0);
      spans[e["tid"].GetInt()].push_back({ts, ts + dur});
      if (std::string(e["name"].GetString()) == "synth::hot_loop()") hot += dur;
    }
  }
  EXPECT_EQ(names[1001], "worker-1 (1001)");
  EXPECT_EQ(names.size(), 3u);
  for (const auto& [tid, v] : spans) {
    for (const auto& a : v) {
      for (const auto& b : v) {
        bool overlap = a.first < b.second - 1e-3 && b.first < a.second - 1e-3;
        bool nested = (a.first >= b.first - 1e-3 && a.second <= b.second + 1e-3) ||
                      (b.first >= a.first - 1e-3 && b.second <= a.second + 1e-3);
        if (overlap) {
          ASSERT_TRUE(nested) << tid;
        }
      }
    }
  }
  // hot_loop is half of the CPU time: 1.5 s of 3 s, in microseconds.
  EXPECT_NEAR(hot, 1.5e6, 1.5e6 * 0.01);
}

TEST(Chrome, EscapesNamesAndPrintsExactMicroseconds) {
  std::string out = render(synth(), Format::kChrome);
  EXPECT_NE(out.find(R"({"ph":"X","name":"<script>alert(1)</script>&\"'","pid":)"),
            std::string::npos);
  // Times are integer nanoseconds printed as microseconds: at most three
  // decimals, no exponent, no trailing zeros.
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "X") continue;
    for (const char* k : {"ts", "dur"}) {
      ASSERT_TRUE(e[k].IsNumber()) << k;
    }
  }
  EXPECT_FALSE(std::regex_search(out, std::regex(R"(\d[eE][-+]?\d)")));
  EXPECT_FALSE(std::regex_search(out, std::regex(R"(\.\d*0[,}])")));
}

TEST(Chrome, DiskFullIsAClearError) {
  std::FILE* full = std::fopen("/dev/full", "w");
  ASSERT_NE(full, nullptr);
  Status st = writeFormat(synth(), Format::kChrome, {}, full);
  std::fclose(full);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "cannot write the report");
  EXPECT_EQ(st.error().errnum, ENOSPC);
  EXPECT_EQ(st.error().hint, "check the output path and free space");
}

TEST(Format, NamesAndPaths) {
  EXPECT_EQ(*parseFormat("svg"), Format::kFlamegraph);
  EXPECT_EQ(*parseFormat("speedscope"), Format::kSpeedscope);
  auto bad = parseFormat("png");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown format 'png'");
  EXPECT_EQ(formatFromPath("out.pb.gz"), Format::kPprof);
  EXPECT_EQ(formatFromPath("flame.svg"), Format::kFlamegraph);
  EXPECT_EQ(formatFromPath("x.speedscope.json"), Format::kSpeedscope);
  EXPECT_EQ(formatFromPath("x.trace.json"), Format::kChrome);
  EXPECT_EQ(formatFromPath("x.json"), std::nullopt);
  EXPECT_EQ(formatFromPath("x.folded"), Format::kFolded);
}

}  // namespace
}  // namespace strobe::output

namespace strobe::output {
namespace {

TEST(XmlEscape, KeepsValidUtf8AndReplacesTheRest) {
  EXPECT_EQ(xmlEscaped("caf\xc3\xa9 <&>"), "caf\xc3\xa9 &lt;&amp;&gt;");
  EXPECT_EQ(xmlEscaped("a\xff"
                       "b"),
            "a?b");
  EXPECT_EQ(xmlEscaped("cut \xe2\x82"), "cut ??") << "a character cut short";
  EXPECT_EQ(xmlEscaped(std::string("nul\0bell\x07", 9)), "nul?bell?");
}

}  // namespace
}  // namespace strobe::output

namespace strobe::output {
namespace {

// A function and a thread whose names are not UTF-8 (a Latin-1 byte, a
// character cut off at the end).
model::Profile badlyEncoded() {
  model::Profile p;
  model::ModuleId m = p.internModule("/opt/app/bin/app", "");
  model::FunctionId f = p.internFunction("caf\xe9_loop\xe2\x82", "caf\xe9_loop", "/src/app.cpp", 3);
  model::LocationId l = p.internLocation(m, 0x1000, 0x401000);
  p.mutableLocations()[l].lines = {{f, 4}};
  p.setThread({7, 7, "w\xffrker"});
  model::StackId s = p.internStack(model::kNone, l);
  for (uint64_t i = 0; i < 10; ++i) p.addSample({i * 1'000'000, 7, 0, s, 1'000'000});
  return p;
}

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8Length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

TEST(Utf8, InvalidBytesBecomeReplacementCharactersInJsonAndPprof) {
  model::Profile p = badlyEncoded();
  const std::string replaced = "caf\xEF\xBF\xBD_loop\xEF\xBF\xBD";
  for (Format f : {Format::kJson, Format::kSpeedscope, Format::kChrome}) {
    std::string out = render(p, f);
    EXPECT_TRUE(isValidUtf8(out)) << out;
    EXPECT_NE(out.find(replaced), std::string::npos) << out;
    rapidjson::Document d;
    d.Parse(out.c_str());
    EXPECT_FALSE(d.HasParseError());
  }
  EXPECT_NE(render(p, Format::kSpeedscope).find("w\xEF\xBF\xBDrker (7)"), std::string::npos);
  // pprof: the gzipped string table, inflated.
  std::string pb = render(p, Format::kPprof);
  char path[] = "/tmp/strobe-utf8-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, pb.data(), pb.size()), static_cast<ssize_t>(pb.size()));
  ::close(fd);
  std::FILE* z = ::popen((std::string("gzip -dc < ") + path).c_str(), "r");
  ASSERT_NE(z, nullptr);
  std::string raw;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, z)) > 0;) raw.append(buf, n);
  ::pclose(z);
  ::unlink(path);
  EXPECT_NE(raw.find(replaced), std::string::npos);
  EXPECT_EQ(raw.find("caf\xe9_"), std::string::npos);
}

TEST(Utf8, ValidTextIsPassedThroughWithoutACopy) {
  std::string scratch;
  std::string_view s = "r\xC3\xA9sum\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  EXPECT_EQ(validUtf8(s, scratch).data(), s.data());
  EXPECT_EQ(validUtf8("a\x80z", scratch), "a\xEF\xBF\xBDz");
  EXPECT_EQ(validUtf8("\xC3", scratch), "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace strobe::output
