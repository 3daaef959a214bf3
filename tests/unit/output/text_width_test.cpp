// Text width: the terminal's width when writing to one, no limit otherwise,
// and long names cut in their middle; rows resting on few samples marked.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "output/format.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"
#include "render.hpp"

namespace strobe::output {
namespace {

TEST(TextWidth, NamesLoseTheirMiddle) {
  const std::string name =
      "std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > "
      ">::_M_realloc_insert()";
  std::string cut = fitMiddle(name, 40);
  EXPECT_EQ(cut.size(), 40u);
  EXPECT_EQ(cut.substr(0, 12), name.substr(0, 12));
  EXPECT_EQ(cut.substr(12, 3), "...");
  EXPECT_EQ(cut.substr(15), name.substr(name.size() - 25)) << "the distinguishing end stays";
  EXPECT_EQ(fitMiddle(name, kNoWidthLimit), name);
  EXPECT_EQ(fitMiddle("short", 40), "short");
  // Never inside a UTF-8 character: "é" is two bytes.
  std::string accents;
  for (int i = 0; i < 20; ++i) accents += "\xc3\xa9";
  std::string a = fitMiddle(accents, 10);
  EXPECT_LE(a.size(), 10u);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == '.') continue;
    ASSERT_EQ(a[i], '\xc3') << i;
    ASSERT_EQ(a[++i], '\xa9') << i;
  }
}

TEST(TextWidth, TheTerminalsWidthElseNoLimit) {
  int master = -1;
  int slave = -1;
  winsize ws{};
  ws.ws_col = 132;
  ws.ws_row = 40;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, &ws), 0);
  std::FILE* tty = ::fdopen(slave, "w");
  ASSERT_NE(tty, nullptr);
  EXPECT_EQ(terminalWidth(tty), 132u);
  std::fclose(tty);
  ::close(master);
  std::FILE* file = std::tmpfile();
  EXPECT_EQ(terminalWidth(file), kNoWidthLimit);
  std::fclose(file);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* pipe = ::fdopen(fds[1], "w");
  EXPECT_EQ(terminalWidth(pipe), kNoWidthLimit);
  std::fclose(pipe);
  ::close(fds[0]);
}

model::Profile longNames() {
  model::Profile p;
  p.meta().event = "cpu-clock";
  model::ModuleId m = p.internModule("/bin/app", "");
  const std::string tail = "::operator()(int) const";
  for (int i = 0; i < 2; ++i) {
    std::string name =
        "ns::Outer<ns::Inner<std::basic_string<char> >, std::vector<long> >::lambda_" +
        std::to_string(i) + tail;
    model::FunctionId f = p.internFunction(name, name, "/src/app.cpp", 10 + i);
    model::LocationId l = p.internLocation(m, 0x10 + i, 0x10 + i);
    p.mutableLocations()[l].lines = {{f, 11u + i}};
    model::StackId s = p.internStack(model::kNone, l);
    for (int k = 0; k < 40; ++k) p.addSample({uint64_t(k), 1, 0, s, 1000});
  }
  return p;
}

TEST(TextWidth, ATableFitsItsWidthAndKeepsNamesApart) {
  ReportOptions opt;
  opt.header = false;
  opt.width = 80;
  std::string out = test::render(longNames(), Format::kText, opt);
  std::istringstream in(out);
  int cut = 0;
  for (std::string l; std::getline(in, l);) {
    EXPECT_LE(l.size(), 80u) << l;
    if (l.find("...") != std::string::npos) ++cut;
  }
  EXPECT_EQ(cut, 2) << out;
  // 41 columns for the name: 12 from its start, 26 from its end.
  EXPECT_NE(out.find("ns::Outer<ns...a_0::operator()(int) const  app.cpp:10"), std::string::npos)
      << out;
  EXPECT_NE(out.find("ns::Outer<ns...a_1::operator()(int) const  app.cpp:11"), std::string::npos)
      << out;
  opt.width = kNoWidthLimit;
  out = test::render(longNames(), Format::kText, opt);
  EXPECT_EQ(out.find("..."), std::string::npos) << "no limit: whole names\n" << out;
}

TEST(FewSamples, RowsOnFewSamplesAreMarked) {
  // 40 samples each: unmarked; then one function with 3 samples.
  model::Profile p = longNames();
  model::FunctionId f = p.internFunction("rare()", "_Z4rarev", "/src/app.cpp", 30);
  model::LocationId l = p.internLocation(p.locations()[0].module, 0x40, 0x40);
  p.mutableLocations()[l].lines = {{f, 31}};
  model::StackId s = p.internStack(model::kNone, l);
  for (int k = 0; k < 3; ++k) p.addSample({uint64_t(100 + k), 1, 0, s, 1000});
  ReportOptions opt;
  opt.header = false;
  std::string out = test::render(p, Format::kText, opt);
  std::istringstream in(out);
  int marked = 0;
  std::string note;
  for (std::string l; std::getline(in, l);) {
    if (l.find("rare()") != std::string::npos) {
      EXPECT_EQ(l.substr(0, 7), "  3.6%*") << l;  // 3 of 83
      ++marked;
    } else if (l.find("lambda_") != std::string::npos) {
      EXPECT_EQ(l[6], ' ') << l;
    }
    if (l.rfind("* fewer than 30 samples", 0) == 0) note = l;
  }
  EXPECT_EQ(marked, 1);
  // Agresti-Coull: p = 5/87 of n = 87: 2.5 points.
  EXPECT_EQ(note,
            "* fewer than 30 samples: such a share is uncertain by about +-2.5 points (one "
            "binomial standard error); record longer or at a higher -F");
}

}  // namespace
}  // namespace strobe::output
