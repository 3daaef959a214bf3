// Python frames (model/interpreter_frames.hpp) in every output: their
// qualified names, files and lines, under and over native frames.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "model/interpreter_frames.hpp"
#include "output/format.hpp"
#include "pprof_decode.hpp"
#include "render.hpp"

namespace strobe::output {
namespace {

using test::render;

// python3.11's <module> -> main -> compress_work, which calls zlib's
// compress (C: zlib_compress -> deflate) 3 times in 5; spin's own line 7
// the rest.
model::Profile pythonProfile() {
  model::Profile p;
  p.meta().event = "cpu-clock";
  const model::ModuleId exe = p.internModule("/usr/bin/python3.11", "");
  const model::ModuleId libz = p.internModule("/usr/lib/x86_64-linux-gnu/libz.so.1", "");
  auto native = [&](model::ModuleId m, uint64_t off, const char* name, const char* file,
                    uint32_t line) {
    const model::LocationId l = p.internLocation(m, off, 0x400000 + off);
    p.mutableLocations()[l].lines.push_back(
        model::Line{p.internFunction(name, name, file, line), line, p.internString(file)});
    return l;
  };
  const model::LocationId start = native(exe, 0x100, "_start", "", 0);
  const model::LocationId eval_code = native(exe, 0x200, "PyEval_EvalCode", "ceval.c", 1140);
  const model::LocationId zc = native(exe, 0x300, "zlib_compress", "zlibmodule.c", 250);
  const model::LocationId deflate = native(libz, 0x400, "deflate", "deflate.c", 800);
  const char* file = "/srv/app/app.py";
  const model::FunctionId module = model::pythonFunction(p, "<module>", file, 1);
  const model::FunctionId main = model::pythonFunction(p, "main", file, 20);
  const model::FunctionId work = model::pythonFunction(p, "Worker.compress_work", file, 10);
  const model::FunctionId spin = model::pythonFunction(p, "spin", file, 5);
  model::StackId base = p.internStack(p.internStack(model::kNone, start), eval_code);
  base = p.internStack(base, model::pythonLocation(p, module, 30, 0x7f0000001000));
  base = p.internStack(base, model::pythonLocation(p, main, 25, 0x7f0000002000));
  const model::StackId worker =
      p.internStack(base, model::pythonLocation(p, work, 12, 0x7f0000003000));
  const model::StackId compress = p.internStack(p.internStack(worker, zc), deflate);
  const model::StackId spinning =
      p.internStack(base, model::pythonLocation(p, spin, 7, 0x7f0000004000));
  for (int i = 0; i < 5; ++i) {
    p.addSample(
        model::Sample{uint64_t(i) * 10'000'000, 100, 0, i < 3 ? compress : spinning, 10'000'000});
  }
  p.setThread(model::Thread{100, 100, "python3.11", {}});
  return p;
}

TEST(PythonFrames, TextNamesThemWithTheirFileAndLine) {
  const model::Profile p = pythonProfile();
  const std::string by_function = render(p, Format::kText);
  EXPECT_NE(by_function.find("40.0%*  40.0%    20.0 ms  spin                  app.py:5\n"),
            std::string::npos)
      << by_function;
  EXPECT_NE(by_function.find("Worker.compress_work  app.py:10\n"), std::string::npos);
  ReportOptions o;
  o.by = model::GroupBy::kLine;
  const std::string by_line = render(p, Format::kText, o);
  EXPECT_NE(by_line.find("spin                  app.py:7\n"), std::string::npos) << by_line;
  EXPECT_NE(by_line.find("Worker.compress_work  app.py:12\n"), std::string::npos);
  EXPECT_NE(by_line.find("<module>              app.py:30\n"), std::string::npos);
}

TEST(PythonFrames, FoldedStacksReadAsTheProgramCalls) {
  EXPECT_EQ(render(pythonProfile(), Format::kFolded),
            "_start;PyEval_EvalCode;<module>;main;Worker.compress_work;zlib_compress;deflate "
            "30000000\n"
            "_start;PyEval_EvalCode;<module>;main;spin 20000000\n");
}

TEST(PythonFrames, PprofCarriesFunctionFileAndLine) {
  const test::PbProfile pb = test::decodePprof(render(pythonProfile(), Format::kPprof));
  bool found = false;
  for (const auto& [id, loc] : pb.locations) {
    ASSERT_EQ(loc.lines.size(), 1u);
    const test::PbFunction& fn = pb.functions.at(loc.lines[0].function);
    if (pb.s(fn.name) != "Worker.compress_work") continue;
    found = true;
    EXPECT_EQ(pb.s(fn.filename), "/srv/app/app.py");
    EXPECT_EQ(fn.start_line, 10);
    EXPECT_EQ(loc.lines[0].line, 12);
    EXPECT_EQ(pb.s(pb.mappings.at(loc.mapping).filename), "[python]");
  }
  EXPECT_TRUE(found);
}

TEST(PythonFrames, SpeedscopeFramesHaveTheirFile) {
  const std::string s = render(pythonProfile(), Format::kSpeedscope);
  EXPECT_NE(s.find(R"({"name":"Worker.compress_work","file":"/srv/app/app.py","line":10})"),
            std::string::npos)
      << s;
}

// The flame graph colours Python frames apart: pale yellow, never the
// reds and oranges of native code.
TEST(PythonFrames, FlameGraphColoursThemAsPython) {
  const std::string svg = render(pythonProfile(), Format::kFlamegraph);
  auto fillOf = [&](const std::string& name) {
    const size_t at = svg.find("data-name=\"" + name + "\"");
    EXPECT_NE(at, std::string::npos) << name;
    const size_t fill = svg.find("fill=\"rgb(", at) + 10;
    int r = 0, g = 0, b = 0;
    std::sscanf(svg.c_str() + fill, "%d,%d,%d", &r, &g, &b);
    return std::array<int, 3>{r, g, b};
  };
  for (const char* py : {"&lt;module&gt;", "main", "Worker.compress_work", "spin"}) {
    auto [r, g, b] = fillOf(py);
    EXPECT_TRUE(r >= 230 && g >= 200 && b >= 90 && b <= 140)
        << py << " " << r << "," << g << "," << b;
  }
  for (const char* native : {"deflate", "zlib_compress", "PyEval_EvalCode"}) {
    auto [r, g, b] = fillOf(native);
    EXPECT_LT(b, 90) << native;
  }
}

// The viewer gets the "[python]" module to colour by, and the source text
// of a hot Python function's file, as for C.
TEST(PythonFrames, ViewerGetsTheKindAndTheSource) {
  std::vector<std::string> file;
  for (int l = 1; l <= 40; ++l) file.push_back("python line " + std::to_string(l));
  ReportOptions opt;
  opt.source_lines = [&](const std::string& f) -> const std::vector<std::string>* {
    return f == "/srv/app/app.py" ? &file : nullptr;
  };
  const std::string page = render(pythonProfile(), Format::kHtml, opt);
  EXPECT_NE(page.find("\"[python]\""), std::string::npos);
  EXPECT_NE(page.find("python line 7"), std::string::npos) << "spin's hot line";
}

}  // namespace
}  // namespace strobe::output
