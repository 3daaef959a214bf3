// Units follow the event, and views pick the time: every writer takes its
// sample type, unit and labels from the recording (model/measure.hpp) — a
// libstrobe wall-mode profile is wall time, a page-faults recording counts
// faults, a recording with off-CPU time shows CPU, off-CPU or wall time.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <sstream>

#include "../model/sample_profile.hpp"
#include "model/measure.hpp"
#include "output/format.hpp"
#include "pprof_decode.hpp"
#include "render.hpp"

namespace strobe::output {
namespace {

using model::SampleKind;

// sampleProfile() as a recording of `event` (its samples of that event's kind).
model::Profile asEvent(const std::string& event, uint64_t period = 0) {
  model::Profile p = test::sampleProfile();
  p.meta().event = event;
  p.meta().sample_period = period;
  if (period != 0) p.meta().frequency = 0;
  const SampleKind kind = model::kindOfEvent(event);
  for (model::Sample& s : p.mutableSamples()) {
    s.kind = kind;
    if (kind == SampleKind::kCount) s.weight = 3;  // 3 faults a sample
  }
  return p;
}

// sampleProfile() recorded with --off-cpu: 100 ms of CPU samples, and
// off-CPU intervals of thread 101 on hot_loop's stack (30 ms, blocked on a
// lock) and compute's (20 ms, preempted).
model::Profile withOffCpu() {
  model::Profile p = test::sampleProfile();
  p.meta().off_cpu = 1;
  p.meta().off_cpu_min_ns = 100'000;
  p.meta().off_cpu_short_count = 7;
  p.meta().off_cpu_short_ns = 210'000;
  const model::StackId hot = p.samples()[0].stack;
  const model::StackId compute = p.samples()[96].stack;
  auto off = [&](uint64_t t, model::StackId s, uint64_t w, model::OffCpuReason r) {
    model::Sample x{t, 101, 1, s, w};
    x.kind = SampleKind::kOffCpu;
    x.off_cpu_reason = r;
    p.addSample(x);
  };
  off(200'000'000, hot, 30'000'000, model::OffCpuReason::kLock);
  off(250'000'000, compute, 20'000'000, model::OffCpuReason::kPreempted);
  return p;
}

using test::lines;

// The table's rows start their FUNCTION column where its heading does.
void expectAlignedTable(const std::string& text, const char* heading) {
  auto ls = lines(text);
  size_t head = 0;
  while (head < ls.size() && ls[head].find(heading) == std::string::npos) ++head;
  ASSERT_LT(head, ls.size()) << text;
  const size_t col = ls[head].find("FUNCTION");
  ASSERT_NE(col, std::string::npos);
  // Rows end at a blank line or at the note on shares of few samples ("* ...").
  for (size_t i = head + 1; i < ls.size() && !ls[i].empty() && ls[i].rfind("* ", 0) != 0; ++i) {
    EXPECT_NE(ls[i][col], ' ') << "row " << i << " is not aligned:\n" << text;
    EXPECT_EQ(ls[i].substr(col - 2, 2), "  ") << "row " << i << " is not aligned:\n" << text;
  }
}

test::PbProfile pprofOf(const model::Profile& p, model::View view = model::View::kAuto) {
  ReportOptions opt;
  opt.view = view;
  return test::decodePprof(test::render(p, Format::kPprof, opt));
}

std::vector<std::string> sampleTypes(const test::PbProfile& pb) {
  std::vector<std::string> out;
  for (const auto& t : pb.sample_types) out.push_back(pb.s(t.type) + "/" + pb.s(t.unit));
  return out;
}

// #16: "a wall library profile's text report says CPU sampled and event:
// wall-clock (events) with misaligned columns, and pprof says Type: cpu".
TEST(Units, LibstrobeWallModeIsWallTime) {
  model::Profile p = asEvent("wall-clock");
  std::string text = test::render(p, Format::kText);
  EXPECT_NE(text.find("wall sampled: 100.0 ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("CPU sampled"), std::string::npos) << text;
  EXPECT_EQ(text.find("(events)"), std::string::npos) << text;
  EXPECT_NE(text.find("event: wall-clock at 999 Hz"), std::string::npos) << text;
  EXPECT_NE(text.find("per thread-second"), std::string::npos) << text;
  expectAlignedTable(text, "SELF-TIME");
  test::PbProfile pb = pprofOf(p);
  EXPECT_EQ(sampleTypes(pb), (std::vector<std::string>{"samples/count", "wall/nanoseconds"}));
  EXPECT_EQ(pb.s(pb.default_sample_type), "wall");
  EXPECT_EQ(pb.s(pb.period_type.type), "wall");
  EXPECT_NE(test::render(p, Format::kFlamegraph).find(">Wall-clock flame graph<"),
            std::string::npos);
  // Wall mode has no CPU view of its own.
  Status st = model::checkView(p, model::View::kCpu);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "this recording sampled wall-clock time (libstrobe's wall mode), so it has no "
            "separate CPU time");
  EXPECT_TRUE(model::checkView(p, model::View::kWall).ok());
}

// #16: "record -e page-faults gives pprof Total samples = 29076ns".
TEST(Units, CountingEventsAreCountsInEveryFormat) {
  model::Profile p = asEvent("page-faults", 1);
  test::PbProfile pb = pprofOf(p);
  EXPECT_EQ(sampleTypes(pb), (std::vector<std::string>{"samples/count", "page-faults/count"}));
  EXPECT_EQ(pb.s(pb.default_sample_type), "page-faults");
  EXPECT_EQ(pb.s(pb.period_type.type) + "/" + pb.s(pb.period_type.unit), "page-faults/count");
  EXPECT_EQ(pb.period, 1);
  int64_t faults = 0;
  for (const auto& s : pb.samples) faults += s.values[1];
  EXPECT_EQ(faults, 300);

  std::string text = test::render(p, Format::kText);
  EXPECT_NE(text.find("page-faults: 300 faults"), std::string::npos) << text;
  EXPECT_EQ(text.find("CPU sampled"), std::string::npos) << text;
  EXPECT_EQ(text.find(" ms"), std::string::npos) << text;  // no durations anywhere
  expectAlignedTable(text, "SELF ");
  ReportOptions tree;
  tree.tree = true;
  std::string t = test::render(p, Format::kText, tree);
  EXPECT_NE(t.find("TOTAL  CALL TREE"), std::string::npos) << t;
  EXPECT_NE(t.find("300 faults"), std::string::npos) << t;

  std::string ss = test::render(p, Format::kSpeedscope);
  EXPECT_NE(ss.find(R"("unit":"none")"), std::string::npos);
  EXPECT_EQ(ss.find("nanoseconds"), std::string::npos);
  rapidjson::Document json;
  json.Parse(test::render(p, Format::kJson).c_str());
  ASSERT_FALSE(json.HasParseError());
  EXPECT_STREQ(json["unit"].GetString(), "count");
  EXPECT_STREQ(json["sample_type"].GetString(), "page-faults");
  EXPECT_EQ(json["total_count"].GetUint64(), 300u);
  EXPECT_FALSE(json.HasMember("total_ns"));
  EXPECT_TRUE(json["rows"][0].HasMember("self_count"));
  std::string csv = test::render(p, Format::kCsv);
  EXPECT_EQ(csv.rfind("rank,name,system_name,file,line,module,self_count,", 0), 0u) << csv;
  EXPECT_NE(test::render(p, Format::kFlamegraph).find("3 faults)"), std::string::npos);
  std::string html = test::render(p, Format::kHtml);
  EXPECT_NE(html.find(R"("unit":"count","count_unit":"faults")"), std::string::npos);
}

TEST(Units, CpuRecordingsAreUnchanged) {
  test::PbProfile pb = pprofOf(test::sampleProfile());
  EXPECT_EQ(sampleTypes(pb), (std::vector<std::string>{"samples/count", "cpu/nanoseconds"}));
  EXPECT_EQ(pb.s(pb.default_sample_type), "cpu");
  rapidjson::Document json;
  json.Parse(test::render(test::sampleProfile(), Format::kJson).c_str());
  EXPECT_EQ(json["total_ns"].GetUint64(), 100'000'000u);
  EXPECT_STREQ(json["sample_type"].GetString(), "cpu");
}

TEST(Views, PprofHasEverySampleTypeAndTheViewsIsTheDefault) {
  model::Profile p = withOffCpu();
  for (auto [view, want] : {std::pair{model::View::kAuto, "wall"},
                            {model::View::kCpu, "cpu"},
                            {model::View::kOffCpu, "off-cpu"},
                            {model::View::kWall, "wall"}}) {
    test::PbProfile pb = pprofOf(p, view);
    EXPECT_EQ(sampleTypes(pb),
              (std::vector<std::string>{"samples/count", "cpu/nanoseconds", "off-cpu/nanoseconds",
                                        "wall/nanoseconds"}));
    EXPECT_EQ(pb.s(pb.default_sample_type), want);
    int64_t cpu = 0, off = 0, wall = 0;
    for (const auto& s : pb.samples) {
      ASSERT_EQ(s.values.size(), 4u);
      cpu += s.values[1];
      off += s.values[2];
      wall += s.values[3];
      EXPECT_EQ(s.values[3], s.values[1] + s.values[2]);
    }
    EXPECT_EQ(cpu, 100'000'000);
    EXPECT_EQ(off, 50'000'000);
    EXPECT_EQ(wall, 150'000'000);
  }
}

TEST(Views, TextHeaderStatesCpuOffCpuAndWallPerThread) {
  model::Profile p = withOffCpu();
  std::string text = test::render(p, Format::kText);
  for (const char* want :
       {"duration:  2.50 s   wall: 150.0 ms   threads: 2",
        "view:      wall (CPU + off-CPU, summed per stack); --view cpu|off-cpu|wall",
        "samples:   100 (3 lost) + 2 off-CPU intervals   event: cpu-clock at 999 Hz",
        "time:      CPU sampled 100.0 ms + off-CPU 50.0 ms = wall 150.0 ms",
        "off-CPU:   blocked 30.0 ms (lock 30.0 ms); runnable, waiting for a CPU 20.0 ms",
        "           7 intervals shorter than 100 us not recorded (210 us in all); 0 switch "
        "records lost",
        "  THREAD                CPU    OFF-CPU   RUNNABLE       WALL",
        "  worker-1 (101)    46.0 ms    30.0 ms    20.0 ms    96.0 ms",
        "  app (100)         54.0 ms          0          0    54.0 ms"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  // The wall view adds both per stack: hot_loop's 60 ms of CPU + 30 ms off.
  EXPECT_NE(text.find("60.0%   60.0%    90.0 ms  app::hot_loop()"), std::string::npos) << text;
  // The CPU view is the CPU profile; its header still states all three.
  ReportOptions cpu;
  cpu.view = model::View::kCpu;
  std::string c = test::render(p, Format::kText, cpu);
  EXPECT_NE(c.find("view:      cpu (CPU time only)"), std::string::npos) << c;
  EXPECT_NE(c.find("60.0%   60.0%    60.0 ms  app::hot_loop()"), std::string::npos) << c;
  EXPECT_NE(c.find("time:      CPU sampled 100.0 ms + off-CPU 50.0 ms"), std::string::npos) << c;
  ReportOptions off;
  off.view = model::View::kOffCpu;
  std::string o = test::render(p, Format::kText, off);
  // Two off-CPU intervals, measured, not sampled: no share is marked uncertain.
  EXPECT_NE(o.find("60.0%   60.0%    30.0 ms  app::hot_loop()"), std::string::npos) << o;
  EXPECT_NE(o.find("40.0%  100.0%    20.0 ms  app::compute(int)"), std::string::npos) << o;
  EXPECT_EQ(o.find("fewer than"), std::string::npos) << o;
}

// #16 with off-CPU time: the command's own CPU is set beside the CPU
// samples only, in every view and in pprof's comments; off-CPU intervals are
// not CPU the command used.
TEST(Views, TheTargetsCpuIsComparedWithTheCpuSamplesInEveryView) {
  model::Profile p = withOffCpu();
  p.meta().target = "command";
  p.meta().target_cpu_ns = 110'000'000;
  for (model::View view :
       {model::View::kAuto, model::View::kCpu, model::View::kOffCpu, model::View::kWall}) {
    ReportOptions o;
    o.view = view;
    std::string text = test::render(p, Format::kText, o);
    EXPECT_NE(text.find("time:      CPU sampled 100.0 ms of the command's 110.0 ms + off-CPU "
                        "50.0 ms = wall 150.0 ms"),
              std::string::npos)
        << text;
    // The completeness line is of the stacks shown, in the view's time.
    const char* of = view == model::View::kCpu      ? " of the sampled CPU reached"
                     : view == model::View::kOffCpu ? " of the sampled off-CPU time reached"
                                                    : " of the sampled wall time reached";
    EXPECT_NE(text.find(of), std::string::npos) << of << "\n" << text;
    test::PbProfile pb = pprofOf(p, view);
    EXPECT_EQ(std::count(pb.strings.begin(), pb.strings.end(),
                         "CPU sampled: 100.0 ms of the command's 110.0 ms"),
              1)
        << model::viewName(view);
  }
  // The html viewer sets the target's CPU beside its CPU samples (viewer.js).
  std::string html = test::render(p, Format::kHtml);
  EXPECT_NE(html.find(R"("target_cpu_ns":110000000)"), std::string::npos);
}

TEST(Views, FoldedFlamegraphChromeSpeedscopeAndHtmlFollowTheView) {
  model::Profile p = withOffCpu();
  ReportOptions off;
  off.view = model::View::kOffCpu;
  EXPECT_EQ(test::render(p, Format::kFolded, off),
            "main;app::compute(int) 20000000\nmain;app::compute(int);app::hot_loop() 30000000\n");
  std::string svg = test::render(p, Format::kFlamegraph);
  EXPECT_NE(svg.find(">Wall-clock flame graph (CPU + off-CPU in blue)<"), std::string::npos);
  // hot_loop: 90 ms, 30 of them off CPU (mostly CPU: the warm colours);
  // compute's own 20 ms off CPU make the off-CPU view all blue.
  EXPECT_NE(svg.find(R"x(data-name="app::hot_loop()" data-off="30000000")x"), std::string::npos);
  EXPECT_NE(svg.find("(61 samples, 60.00%, 90.0 ms wall, 30.0 ms of it off-CPU)"),
            std::string::npos)
      << svg;
  std::string blue = test::render(p, Format::kFlamegraph, off);
  EXPECT_NE(blue.find(">Off-CPU flame graph<"), std::string::npos);
  for (size_t at = blue.find("<rect x=", blue.find("<g id=\"frames\">")); at != std::string::npos;
       at = blue.find("<rect x=", at + 1)) {
    const size_t fill = blue.find("fill=\"rgb(", at);
    int r = 0, g = 0, b = 0;
    ASSERT_EQ(std::sscanf(blue.c_str() + fill, "fill=\"rgb(%d,%d,%d)", &r, &g, &b), 3);
    if (r == 200 && g == 200 && b == 200) continue;  // the root
    EXPECT_GE(b, 220) << blue.substr(at, 200);
    EXPECT_LE(r, 90) << blue.substr(at, 200);
  }
  std::string chrome = test::render(p, Format::kChrome);
  EXPECT_NE(
      chrome.find(R"("cat":"off-cpu","cname":"thread_state_sleeping","args":{"off-cpu":"lock"})"),
      std::string::npos);
  EXPECT_NE(chrome.find(R"("args":{"off-cpu":"runnable, waiting for a CPU"})"), std::string::npos);
  ReportOptions cpu;
  cpu.view = model::View::kCpu;
  EXPECT_EQ(test::render(p, Format::kChrome, cpu).find("off-cpu\""), std::string::npos);
  std::string ss = test::render(p, Format::kSpeedscope);
  EXPECT_NE(ss.find(R"x("name":"strobe (wall)")x"), std::string::npos);
  std::string html = test::render(p, Format::kHtml);
  EXPECT_NE(html.find(R"("view":"wall","label":"wall","unit":"nanoseconds")"), std::string::npos);
  EXPECT_NE(html.find(R"("samples":46,"data":")"), std::string::npos);
  EXPECT_NE(html.find(R"(","off_samples":2,"off_data":")"), std::string::npos);
  EXPECT_EQ(test::render(p, Format::kHtml, cpu).find(R"("off_data":")"), std::string::npos);
}

TEST(Views, AViewTheRecordingCannotShowIsAUsageError) {
  model::Profile plain = test::sampleProfile();
  for (auto view : {model::View::kOffCpu, model::View::kWall}) {
    ReportOptions opt;
    opt.view = view;
    Status st = writeFormat(plain, Format::kText, opt, stdout);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
    EXPECT_EQ(st.error().hint, "record with: strobe record --off-cpu ..., or use --view cpu");
  }
  ReportOptions cpu;
  cpu.view = model::View::kCpu;
  Status st = writeFormat(asEvent("page-faults", 1), Format::kText, cpu, stdout);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "this recording counts page-faults, not time: --view cpu does not apply");
  EXPECT_EQ(model::parseView("wall"), model::View::kWall);
  EXPECT_EQ(model::parseView("off-cpu"), model::View::kOffCpu);
  EXPECT_FALSE(model::parseView("events"));
  EXPECT_EQ(model::defaultView(withOffCpu()), model::View::kWall);
  EXPECT_EQ(model::defaultView(plain), model::View::kCpu);
  EXPECT_EQ(model::defaultView(asEvent("page-faults", 1)), model::View::kEvents);
}

}  // namespace
}  // namespace strobe::output
