// The html writer on the synthetic profile: the page carries the viewer and
// the profile (decoded here as viewer/core.js decodes it), escapes a hostile
// name so that it cannot end the script element, and is valid UTF-8.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "output/format.hpp"
#include "output/utf8.hpp"
#include "render.hpp"
#include "synth_profile.hpp"

namespace strobe::output {
namespace {

std::string render(const model::Profile& p, const ReportOptions& opt = {}) {
  return test::render(p, Format::kHtml, opt);
}

using test::synth;

constexpr std::string_view kDataOpen = R"(<script type="application/json" id="strobe-data">)";

// The JSON between the data element's tags.
std::string dataOf(const std::string& page) {
  size_t at = page.find(kDataOpen);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return "{}";
  at += kDataOpen.size();
  return page.substr(at, page.find("</script>", at) - at);
}

// viewer/core.js's reader of base64 variable-length numbers.
std::vector<uint64_t> decode(std::string_view s) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint64_t> out;
  uint64_t v = 0;
  int shift = 0;
  for (char c : s) {
    size_t d = alphabet.find(c);
    EXPECT_NE(d, std::string::npos) << "not a digit: " << c;
    v |= static_cast<uint64_t>(d & 31) << shift;
    shift += 5;
    if ((d & 32) == 0) {
      out.push_back(v);
      v = 0;
      shift = 0;
    }
  }
  EXPECT_EQ(shift, 0) << "the data ends inside a number";
  return out;
}

int64_t unzigzag(uint64_t v) {
  return (v & 1) != 0 ? -static_cast<int64_t>((v + 1) / 2) : static_cast<int64_t>(v / 2);
}

struct Decoded {
  std::vector<std::string> strings;
  std::vector<uint64_t> frame_name;      // per frame: string index
  std::vector<uint64_t> frame_flags;     // per frame
  std::vector<uint64_t> frame_function;  // per frame: function number
  std::vector<int64_t> node_parent;      // per (frame, line) node; -1 at the root
  std::vector<uint64_t> node_frame;      // per node
  std::vector<uint64_t> node_line;       // per node
  std::vector<int64_t> node_display;     // per node: its display node
  std::vector<int64_t> display_parent;   // per display node; -1 at the root
  std::vector<uint64_t> display_frame;   // per display node
  std::map<std::string, uint64_t> self;  // leaf frame name -> weight
  std::map<std::string, size_t> thread_samples;
  uint64_t total = 0;
};

Decoded decodePage(const std::string& page) {
  Decoded d;
  rapidjson::Document doc;
  std::string json = dataOf(page);
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json.substr(0, 200);
  if (doc.HasParseError()) return d;
  EXPECT_STREQ(doc["format"].GetString(), "strobe-html");
  EXPECT_EQ(doc["time_unit_ns"].GetUint64(), 1000u);
  for (const auto& s : doc["strings"].GetArray())
    d.strings.emplace_back(s.GetString(), s.GetStringLength());
  std::vector<uint64_t> frames = decode(doc["frames"].GetString());
  EXPECT_EQ(doc["version"].GetUint(), 3u);
  EXPECT_EQ(frames.size(), 6 * doc["frame_count"].GetUint64());
  for (size_t i = 0; i + 5 < frames.size(); i += 6) {
    d.frame_name.push_back(frames[i]);
    d.frame_flags.push_back(frames[i + 4]);
    d.frame_function.push_back(frames[i + 5]);
    EXPECT_LT(frames[i + 5], doc["function_count"].GetUint64());
  }
  EXPECT_EQ(doc["few_samples"].GetUint(), 30u);
  std::vector<uint64_t> nodes = decode(doc["nodes"].GetString());
  EXPECT_EQ(nodes.size(), 4 * doc["node_count"].GetUint64());
  for (size_t i = 0; i + 3 < nodes.size(); i += 4) {
    auto id = static_cast<int64_t>(i / 4);
    d.node_parent.push_back(id - static_cast<int64_t>(nodes[i]));
    EXPECT_LT(d.node_parent.back(), id) << "a parent comes before its children";
    EXPECT_GE(d.node_parent.back(), -1);
    d.node_frame.push_back(nodes[i + 1]);
    d.node_line.push_back(nodes[i + 2]);
    // 0: a new display node, else how many back.
    auto next = static_cast<int64_t>(d.display_parent.size());
    if (nodes[i + 3] == 0) {
      int64_t up = d.node_parent.back();
      d.display_parent.push_back(up < 0 ? -1 : d.node_display[up]);
      d.display_frame.push_back(nodes[i + 1]);
      d.node_display.push_back(next);
    } else {
      d.node_display.push_back(next - static_cast<int64_t>(nodes[i + 3]));
      EXPECT_GE(d.node_display.back(), 0);
      if (d.node_display.back() < 0) return d;
      EXPECT_EQ(d.display_frame[d.node_display.back()], nodes[i + 1]) << "a node shows its frame";
    }
  }
  EXPECT_EQ(d.display_parent.size(), doc["display_node_count"].GetUint64());
  for (const auto& t : doc["threads"].GetArray()) {
    std::vector<uint64_t> v = decode(t["data"].GetString());
    size_t n = t["samples"].GetUint64();
    EXPECT_EQ(v.size(), 3 * n);
    d.thread_samples[std::string(t["name"].GetString()) + " (" + std::to_string(t["tid"].GetInt()) +
                     ")"] = n;
    int64_t node = 0;
    int64_t weight = 0;
    for (size_t i = 0; i + 2 < v.size(); i += 3) {
      node += unzigzag(v[i + 1]);
      weight += unzigzag(v[i + 2]);
      d.total += static_cast<uint64_t>(weight);
      if (node > 0)
        d.self[d.strings[d.frame_name[d.node_frame[node - 1]]]] += static_cast<uint64_t>(weight);
    }
  }
  return d;
}

TEST(Html, CarriesTheViewerAndTheProfile) {
  std::string page = render(synth());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos) << "the page may fetch nothing";
  EXPECT_EQ(page.find("/*STROBE:"), std::string::npos) << "a marker was left in the page";
  // Every script of viewer/, in order (core first, start.js last), the
  // style and the markup.
  size_t at = 0;
  for (const char* part :
       {"strobe's HTML viewer, the core", "strobe's HTML viewer, the timeline",
        "strobe's HTML viewer, the flame graph", "strobe's HTML viewer, the call tree",
        "strobe's HTML viewer, the sandwich", "strobe's HTML viewer, the top functions",
        "strobe's HTML viewer, the stack chart", "strobe's HTML viewer, the spans",
        "window.strobeViewer.start();"}) {
    size_t found = page.find(part, at);
    EXPECT_NE(found, std::string::npos) << part;
    if (found != std::string::npos) at = found;
  }
  EXPECT_NE(page.find("canvas.flame {"), std::string::npos);
  EXPECT_NE(page.find("id=\"calltree-table\""), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);

  Decoded d = decodePage(page);
  EXPECT_EQ(d.thread_samples,
            (std::map<std::string, size_t>{
                {"main (1000)", 1000}, {"worker-1 (1001)", 1000}, {"worker-2 (1002)", 1000}}));
  // The self shares of synth_profile.hpp, from the decoded samples.
  ASSERT_GT(d.total, 0u);
  auto share = [&](const std::string& f) {
    return 100.0 * static_cast<double>(d.self[f]) / static_cast<double>(d.total);
  };
  EXPECT_NEAR(share("synth::hot_loop()"), 50, 0.5);
  EXPECT_NEAR(share("synth::helper(int)"), 20, 0.5);
  EXPECT_NEAR(share("synth::compute(int)"), 10, 0.5);
  EXPECT_NEAR(share(test::kHostileName), 5, 0.5);
  EXPECT_NEAR(share("libc.so.6+0x9a0f0"), 5, 0.5);
  // hot_loop's callers: compute, then main or worker_main at the root.
  for (size_t n = 0; n < d.node_frame.size(); ++n) {
    if (d.strings[d.frame_name[d.node_frame[n]]] != "synth::hot_loop()") continue;
    int64_t up = d.node_parent[n];
    ASSERT_GE(up, 0);
    EXPECT_EQ(d.strings[d.frame_name[d.node_frame[up]]], "synth::compute(int)");
    up = d.node_parent[up];
    ASSERT_GE(up, 0);
    EXPECT_EQ(d.node_parent[up], -1);
  }
  // The display nodes: one per distinct path of frames, lines merged.
  std::map<std::pair<int64_t, uint64_t>, int> seen;
  for (size_t n = 0; n < d.display_frame.size(); ++n) {
    int& count = seen[std::make_pair(d.display_parent[n], d.display_frame[n])];
    EXPECT_EQ(++count, 1) << "display node " << n;
  }
}

// The lines of each frame, and the source text of the hottest functions
// (synth_profile.hpp's 6:3:1 profile: hot_a() 60% on lines 11-13).
TEST(Html, CarriesLinesAndTheHottestSource) {
  model::Profile p = test::synthPhasesProfile(1200, "/src/work.cpp");
  std::vector<std::string> file;
  for (int l = 1; l <= 80; ++l) file.push_back("line " + std::to_string(l) + " </script>");
  ReportOptions opt;
  std::vector<std::string> asked;
  opt.source_lines = [&](const std::string& f) -> const std::vector<std::string>* {
    asked.push_back(f);
    return f == "/src/work.cpp" ? &file : nullptr;
  };
  std::string page = render(p, opt);
  Decoded d = decodePage(page);
  std::map<std::string, std::set<uint64_t>> lines;  // function -> lines of its nodes
  for (size_t n = 0; n < d.node_frame.size(); ++n) {
    lines[d.strings[d.frame_name[d.node_frame[n]]]].insert(d.node_line[n]);
  }
  EXPECT_EQ(lines["hot_a()"], (std::set<uint64_t>{11, 12, 13}));
  EXPECT_EQ(lines["phase_one()"], (std::set<uint64_t>{42}));
  EXPECT_EQ(lines["main"], (std::set<uint64_t>{62, 63}));
  // main's two lines are one display node.
  size_t mains = 0;
  for (uint64_t f : d.display_frame) mains += d.strings[d.frame_name[f]] == "main" ? 1 : 0;
  EXPECT_EQ(mains, 1u);

  rapidjson::Document doc;
  std::string json = dataOf(page);
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(asked, (std::vector<std::string>{"/src/work.cpp"})) << "read once";
  // hot_a (60%), warm_b (30%): 90% of the self time, lines 8..23 with the
  // margins, merged into one range of the file.
  ASSERT_EQ(doc["sources"].Size(), 1u);
  const auto& src = doc["sources"][0];
  EXPECT_EQ(d.strings[src["file"].GetUint()], "/src/work.cpp");
  EXPECT_EQ(src["first"].GetUint(), 8u);
  ASSERT_EQ(src["lines"].Size(), 16u);
  EXPECT_STREQ(src["lines"][4].GetString(), "line 12 </script>");
  EXPECT_EQ(page.find("line 12 </script>"), std::string::npos) << "the text cannot end the script";

  // Without a reader (or an unreadable file), no text: line numbers only.
  Decoded bare = decodePage(render(p));
  EXPECT_NE(dataOf(render(p)).find(R"("sources":[])"), std::string::npos);
  EXPECT_EQ(bare.node_line, d.node_line);
}

TEST(Html, AHostileNameCannotEndTheScript) {
  std::string page = render(synth());
  // The page's own two scripts close; nothing else does.
  size_t closes = 0;
  for (size_t at = page.find("</script"); at != std::string::npos;
       at = page.find("</script", at + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  std::string data = dataOf(page);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_EQ(data.find('>'), std::string::npos);
  EXPECT_EQ(data.find('&'), std::string::npos);
  EXPECT_NE(data.find(R"("\u003cscript\u003ealert(1)\u003c/script\u003e\u0026\"'")"),
            std::string::npos);
  // JSON.parse reads the name back as it was recorded.
  Decoded d = decodePage(page);
  EXPECT_NE(std::find(d.strings.begin(), d.strings.end(), test::kHostileName), d.strings.end());
}

TEST(Html, HostileThreadNamesAndCommandsStayInTheirStrings) {
  model::Profile p = test::synthProfile(300, false);
  p.setThread({1001, 1000, test::kHostileName});
  p.meta().command = {"/bin/x", "</script><script>alert(2)</script>", "<!--"};
  ReportOptions opt;
  opt.source = "<b>rec</b>.db";
  std::string page = render(p, opt);
  size_t closes = 0;
  for (size_t at = page.find("</script"); at != std::string::npos;
       at = page.find("</script", at + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);
  std::string data = dataOf(page);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_NE(
      data.find(
          R"("\u003c/script\u003e\u003cscript\u003ealert(2)\u003c/script\u003e","\u003c!--"])"),
      std::string::npos);
  EXPECT_NE(data.find(R"("source":"\u003cb\u003erec\u003c/b\u003e.db")"), std::string::npos);
  EXPECT_EQ(decodePage(page).thread_samples.count(std::string(test::kHostileName) + " (1001)"), 1u);
}

TEST(Html, ValidUtf8AndLineSeparatorsEscaped) {
  model::Profile p;
  model::ModuleId m = p.internModule("/opt/app/bin/app", "");
  model::FunctionId f = p.internFunction("caf\xe9_loop\xe2\x80\xa8x", "f", "/src/app.cpp", 3);
  model::LocationId l = p.internLocation(m, 0x1000, 0x401000);
  p.mutableLocations()[l].lines = {{f, 4}};
  p.setThread({7, 7, "w\xffrker"});
  model::StackId s = p.internStack(model::kNone, l);
  for (uint64_t i = 0; i < 10; ++i) p.addSample({i * 1'000'000, 7, 0, s, 1'000'000});
  std::string page = render(p);
  for (size_t i = 0; i < page.size();) {
    size_t n = utf8Length(page, i);
    ASSERT_NE(n, 0u) << "invalid UTF-8 at byte " << i;
    i += n;
  }
  std::string data = dataOf(page);
  EXPECT_NE(data.find("caf\xEF\xBF\xBD_loop\\u2028x"), std::string::npos) << data;
  EXPECT_NE(data.find("w\xEF\xBF\xBDrker"), std::string::npos);
}

TEST(Html, FiltersAndNoInlineApply) {
  ReportOptions opt;
  opt.filter.tids = {1001};
  opt.no_inline = true;
  Decoded d = decodePage(render(synth(), opt));
  EXPECT_EQ(d.thread_samples, (std::map<std::string, size_t>{{"worker-1 (1001)", 1000}}));
  EXPECT_EQ(d.self.count("synth::helper(int)"), 0u) << "--no-inline folds helper into compute";
  EXPECT_NEAR(
      100.0 * static_cast<double>(d.self["synth::compute(int)"]) / static_cast<double>(d.total), 30,
      0.5);
  opt = {};
  opt.filter.until_ns = 1'000'000'000;
  Decoded early = decodePage(render(synth(), opt));
  size_t n = 0;
  for (const auto& [name, count] : early.thread_samples) n += count;
  EXPECT_LT(n, 3000u);
  EXPECT_GT(n, 0u);
}

TEST(Html, FunctionsAreNumberedByIdentityNotByName) {
  // Two functions named "helper" (other files), and one function seen both
  // inlined and called: the viewer's table counts by the function number.
  model::Profile p;
  p.meta().event = "cpu-clock";
  model::ModuleId m = p.internModule("/bin/app", "");
  model::FunctionId a = p.internFunction("helper", "helper", "/src/a.cpp", 5);
  model::FunctionId b = p.internFunction("helper", "helper", "/src/b.cpp", 9);
  model::FunctionId top = p.internFunction("run", "run", "/src/run.cpp", 1);
  auto loc = [&](uint64_t off, std::vector<model::Line> lines) {
    model::LocationId l = p.internLocation(m, off, off);
    p.mutableLocations()[l].lines = std::move(lines);
    return l;
  };
  model::StackId root = p.internStack(model::kNone, loc(1, {{top, 2}}));
  p.addSample({0, 1, 0, p.internStack(root, loc(2, {{a, 6}})), 1});
  p.addSample({1, 1, 0, p.internStack(root, loc(3, {{b, 10}})), 1});
  p.addSample({2, 1, 0, p.internStack(model::kNone, loc(4, {{a, 7}, {top, 3}})), 1});
  Decoded d = decodePage(render(p));
  std::map<uint64_t, std::vector<size_t>> helpers;  // function number -> frames
  for (size_t f = 0; f < d.frame_name.size(); ++f) {
    if (d.strings[d.frame_name[f]] == "helper") helpers[d.frame_function[f]].push_back(f);
  }
  ASSERT_EQ(helpers.size(), 2u) << "two functions named helper";
  size_t with_inlined = 0;
  for (const auto& [fn, frames] : helpers) with_inlined += frames.size() == 2;
  EXPECT_EQ(with_inlined, 1u) << "a.cpp's helper, inlined and called: two frames, one function";
}

TEST(Html, NamesPathsAndDiskFull) {
  EXPECT_EQ(*parseFormat("html"), Format::kHtml);
  EXPECT_EQ(formatFromPath("profile.html"), Format::kHtml);
  EXPECT_EQ(formatName(Format::kHtml), "html");
  EXPECT_NE(formatList().find(", html"), std::string::npos);
  std::FILE* full = std::fopen("/dev/full", "w");
  ASSERT_NE(full, nullptr);
  Status st = writeFormat(synth(), Format::kHtml, {}, full);
  std::fclose(full);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "cannot write the report");
  EXPECT_EQ(st.error().errnum, ENOSPC);
}

TEST(Html, AnEmptyProfileIsAPage) {
  model::Profile p;
  Decoded d = decodePage(render(p));
  EXPECT_TRUE(d.thread_samples.empty());
  EXPECT_EQ(d.total, 0u);
}

}  // namespace
}  // namespace strobe::output
