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

using test::synth;

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

// Two threads: "idle" with one sample 100 ms into a 1 s recording, "busy"
// with ten samples of 10 ms from 200 ms on.
model::Profile idleAndBusy() {
  model::Profile p;
  p.meta().duration_ns = 1'000'000'000;
  p.meta().event = "cpu-clock";
  model::ModuleId m = p.internModule("/bin/app", "");
  model::FunctionId f = p.internFunction("work()", "_Z4workv", "/src/app.cpp", 3);
  model::LocationId l = p.internLocation(m, 0x10, 0x10);
  p.mutableLocations()[l].lines = {{f, 4}};
  model::StackId s = p.internStack(model::kNone, l);
  p.setThread({1, 1, "idle"});
  p.setThread({2, 1, "busy"});
  const uint64_t ms = 1'000'000;
  p.addSample({100 * ms, 1, 0, s, 1 * ms});
  for (uint64_t i = 0; i < 10; ++i) p.addSample({200 * ms + i * 10 * ms, 2, 0, s, 10 * ms});
  return p;
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

TEST(Json, SharesRoundAsCsvDoes) {
  // 1 and 6 of 7: 14.2857...% and 85.7142...%: rounded, not cut.
  model::Profile p = idleAndBusy();
  p.mutableSamples().resize(2);
  p.mutableSamples()[0].weight = 1;
  p.mutableSamples()[1].weight = 6;
  p.mutableSamples()[1].stack = p.internStack(model::kNone, [&] {
    model::LocationId l = p.internLocation(p.locations()[0].module, 0x20, 0x20);
    p.mutableLocations()[l].lines = {{p.internFunction("other()", "_Z5otherv", "", 0), 1}};
    return l;
  }());
  std::string json = render(p, Format::kJson);
  std::string csv = render(p, Format::kCsv);
  EXPECT_NE(json.find("\"self_pct\":85.714,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"self_pct\":14.286,"), std::string::npos) << json;
  EXPECT_NE(csv.find(",85.714,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",14.286,"), std::string::npos) << csv;
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
    uint64_t sampled = 0;  // the weight of the samples with a stack
    for (rapidjson::SizeType i = 0; i < prof["weights"].Size(); ++i) {
      uint64_t w = prof["weights"][i].GetUint64();
      sum += w;
      if (prof["samples"][i].Size() > 0) sampled += w;
    }
    EXPECT_EQ(sum, prof["endValue"].GetUint64());
    EXPECT_GE(sum, synth().meta().duration_ns) << "every thread spans the recording";
    total += sampled;
    for (const auto& smp : prof["samples"].GetArray()) {
      for (const auto& f : smp.GetArray()) ASSERT_LT(f.GetUint(), frames.Size());
    }
  }
  EXPECT_EQ(total, model::totals(synth()).weight);
  // Root first: main's samples start at "main".
  const auto& main_samples = profiles[0]["samples"];
  rapidjson::SizeType k = 0;
  while (k < main_samples.Size() && main_samples[k].Empty()) ++k;
  ASSERT_LT(k, main_samples.Size());
  uint32_t first = main_samples[k][0].GetUint();
  EXPECT_EQ(std::string(frames[first]["name"].GetString()), "main");
}

TEST(Speedscope, OpensOnTheBusiestThread) {
  rapidjson::Document d;
  std::string out = render(idleAndBusy(), Format::kSpeedscope);
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  const auto& profiles = d["profiles"];
  ASSERT_EQ(profiles.Size(), 2u);
  const rapidjson::SizeType active = d["activeProfileIndex"].GetUint();
  ASSERT_LT(active, profiles.Size());
  EXPECT_EQ(std::string(profiles[active]["name"].GetString()), "busy (2)");
}

TEST(Speedscope, TimeAxisIsWallTimeWithIdleGaps) {
  rapidjson::Document d;
  std::string out = render(idleAndBusy(), Format::kSpeedscope);
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  const uint64_t ms = 1'000'000;
  // idle (1): not sampled for 100 ms, 1 ms of work, then nothing to the end.
  const auto& idle = d["profiles"][0];
  ASSERT_EQ(std::string(idle["name"].GetString()), "idle (1)");
  ASSERT_EQ(idle["samples"].Size(), 3u);
  EXPECT_TRUE(idle["samples"][0].Empty());
  EXPECT_EQ(idle["samples"][1].Size(), 1u);
  EXPECT_TRUE(idle["samples"][2].Empty());
  EXPECT_EQ(idle["weights"][0].GetUint64(), 100 * ms);
  EXPECT_EQ(idle["weights"][1].GetUint64(), 1 * ms);
  EXPECT_EQ(idle["weights"][2].GetUint64(), 899 * ms);
  EXPECT_EQ(idle["startValue"].GetUint64(), 0u);
  EXPECT_EQ(idle["endValue"].GetUint64(), 1000 * ms);
  // busy (2): 200 ms idle, ten touching samples, 700 ms idle.
  const auto& busy = d["profiles"][1];
  ASSERT_EQ(busy["samples"].Size(), 12u);
  EXPECT_EQ(busy["weights"][0].GetUint64(), 200 * ms);
  EXPECT_EQ(busy["weights"][11].GetUint64(), 700 * ms);
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

TEST(Chrome, EscapesNamesAndPrintsWholeMicroseconds) {
  std::string out = render(synth(), Format::kChrome);
  EXPECT_NE(out.find(R"({"ph":"X","name":"<script>alert(1)</script>&\"'","pid":)"),
            std::string::npos);
  // Times are whole microseconds (viewers add ts + dur in floating point:
  // fractions would un-nest slices that touch), no exponent.
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "X") continue;
    for (const char* k : {"ts", "dur"}) {
      ASSERT_TRUE(e[k].IsUint64()) << k;
    }
  }
  EXPECT_FALSE(std::regex_search(out, std::regex(R"re("(ts|dur)":\d+[.eE])re")));
}

TEST(Chrome, EventsOfOneThreadAreWrittenOutermostFirst) {
  // Viewers nest X events of one start time in file order (speedscope):
  // per thread, start times never go back, and of one start time the
  // longer (outer) event comes first.
  std::string out = render(synth(), Format::kChrome);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  std::map<int, std::pair<double, double>> last;  // per tid: (ts, end) of the last X event
  std::map<int, std::string> first_name;
  size_t events = 0;
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "X") continue;
    ++events;
    const int tid = e["tid"].GetInt();
    const double ts = e["ts"].GetDouble(), end = ts + e["dur"].GetDouble();
    if (!first_name.count(tid)) first_name[tid] = e["name"].GetString();
    auto it = last.find(tid);
    if (it != last.end()) {
      ASSERT_GE(ts, it->second.first - 1e-6) << "an event starts before the previous one";
      if (ts <= it->second.first + 1e-6) {
        ASSERT_LE(end, it->second.second + 1e-6) << "an inner event before its outer one";
      }
    }
    last[tid] = {ts, end};
  }
  EXPECT_GT(events, 10u);
  EXPECT_EQ(first_name[1000], "main") << "a thread's first event is its root frame";
}

TEST(Chrome, ConsecutiveSamplesOfOneStackAreOneSlice) {
  // busy (2): ten touching samples of one stack: one X event.
  std::string out = render(idleAndBusy(), Format::kChrome);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  int busy_events = 0;
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "X" || e["tid"].GetInt() != 2) continue;
    ++busy_events;
    EXPECT_EQ(e["dur"].GetDouble(), 100'000);  // 100 ms in microseconds
  }
  EXPECT_EQ(busy_events, 1);
}

TEST(Chrome, TheBusiestThreadSortsFirst) {
  std::string out = render(idleAndBusy(), Format::kChrome);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError());
  std::map<int, int> sort_index;
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) == "M" &&
        std::string(e["name"].GetString()) == "thread_sort_index") {
      sort_index[e["tid"].GetInt()] = e["args"]["sort_index"].GetInt();
    }
  }
  ASSERT_EQ(sort_index.size(), 2u);
  EXPECT_LT(sort_index[2], sort_index[1]);
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
