// Golden test of the text report: prints a diff when the output changes.
// Regenerate with STROBE_UPDATE_GOLDEN=1 after an intended change.
#include "output/text_report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../model/sample_profile.hpp"
#include "output/span_table.hpp"

namespace strobe::output {
namespace {

std::string render(const model::Profile& p, const TextOptions& opt) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  writeTextReport(p, opt, "app.db", f);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

std::string diffLines(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb, out;
  for (int n = 1;; ++n) {
    bool ga = static_cast<bool>(std::getline(a, la));
    bool gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) break;
    if (!ga) la = "(end)";
    if (!gb) lb = "(end)";
    if (la != lb) out += "line " + std::to_string(n) + ":\n  - " + la + "\n  + " + lb + "\n";
  }
  return out;
}

void expectGolden(const std::string& name, const std::string& got) {
  std::string path = std::string(STROBE_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("STROBE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got;
    return;
  }
  std::ifstream in(path);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(want.str(), got) << "golden " << name << " differs:\n" << diffLines(want.str(), got);
}

TEST(TextReport, ByFunctionGolden) {
  TextOptions opt;
  expectGolden("text_by_function.txt", render(test::sampleProfile(), opt));
}

TEST(TextReport, ByLineGolden) {
  TextOptions opt;
  opt.by = model::GroupBy::kLine;
  opt.top = 5;
  expectGolden("text_by_line.txt", render(test::sampleProfile(), opt));
}

TEST(TextReport, EmptyProfileSaysSo) {
  model::Profile p;
  TextOptions opt;
  opt.header = false;
  EXPECT_NE(render(p, opt).find("(no samples)"), std::string::npos);
}

// Span names are the program's bytes: the --spans table escapes what a
// terminal would act on, as the function table does.
TEST(TextReport, SpanTableEscapesControlCharacters) {
  model::Profile p = test::sampleProfile();
  p.addSpan({100, 0, 0, 2'000'000'000, p.internString("req\x1b]0;pwned\x07\nforged")});
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  ASSERT_TRUE(writeSpanTable(p, SpanTableFormat::kText, false, "app\x1b[2J.db", f).ok());
  std::fclose(f);
  std::string text(buf, len);
  std::free(buf);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("req\\x1b]0;pwned\\x07\\x0aforged"), std::string::npos) << text;
  EXPECT_NE(text.find("recording: app\\x1b[2J.db"), std::string::npos) << text;
}

TEST(TextReport, FormatHelpers) {
  EXPECT_EQ(formatDuration(2'500'000'000), "2.50 s");
  EXPECT_EQ(formatDuration(45'600'000), "45.6 ms");
  EXPECT_EQ(formatDuration(789'000), "789 us");
  EXPECT_EQ(formatDuration(0), "0");
  EXPECT_EQ(formatCommand({"./app", "big file", "it's"}), "./app 'big file' 'it'\\''s'");
  model::Meta m;
  m.command = {"./server", "-v"};
  EXPECT_EQ(formatTarget(m), "./server -v");
  m.target = "pid 12,34";
  EXPECT_EQ(formatTarget(m), "pid 12,34 (./server -v)");
  m.target = "system";
  m.command.clear();
  EXPECT_EQ(formatTarget(m), "the whole system");
}

}  // namespace
}  // namespace strobe::output

namespace strobe::output {
namespace {

// A rare function among many samples has a small error: it is printed so,
// never as "+-0.0".
TEST(FewSamplesNote, SmallErrorsKeepTheirSize) {
  EXPECT_NE(fewSamplesNote(4.31).find("uncertain by about +-4.3 points"), std::string::npos);
  EXPECT_NE(fewSamplesNote(0.034).find("uncertain by about +-0.03 points"), std::string::npos);
  EXPECT_NE(fewSamplesNote(0.004).find("uncertain by less than +-0.01 points"), std::string::npos);
}

}  // namespace
}  // namespace strobe::output
