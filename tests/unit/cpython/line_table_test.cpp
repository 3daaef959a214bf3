// The line-table decoder against CPython itself (co_positions() of code
// objects with varied tables, per installed version) and on crafted bytes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../../e2e/run_process.hpp"
#include "cpython/line_table.hpp"
#include "pythons.hpp"

namespace strobe::cpython {
namespace {

std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// The value after "key": in one JSON line of line_tables.py (a string, a
// number or a list of numbers, as text).
std::string jsonField(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\": ";
  size_t at = line.find(k);
  if (at == std::string::npos) return {};
  at += k.size();
  if (line[at] == '"') return line.substr(at + 1, line.find('"', at + 1) - at - 1);
  if (line[at] == '[') return line.substr(at + 1, line.find(']', at) - at - 1);
  return line.substr(at, line.find_first_of(",}", at) - at);
}

void checkAgainstPython(int minor) {
  auto pythons = test::installedPythons(minor);
  if (pythons.empty()) GTEST_SKIP() << test::noPythonReason(minor);
  for (const test::TestPython& py : pythons) {
    SCOPED_TRACE(py.name);
    test::Ran r = test::runProcess({py.binary, test::cpythonScript("line_tables.py")});
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    int code_objects = 0, far_lines = 0;
    for (std::string line; std::getline(lines, line);) {
      ++code_objects;
      const std::string qualname = jsonField(line, "qualname");
      SCOPED_TRACE(qualname);
      const auto table = fromHex(jsonField(line, "table"));
      const int first = std::stoi(jsonField(line, "first_line"));
      std::vector<int> expected;
      std::istringstream nums(jsonField(line, "lines"));
      for (std::string n; std::getline(nums, n, ',');) expected.push_back(std::stoi(n));

      std::vector<LineRange> ranges;
      ASSERT_TRUE(decodeLineTable(table.data(), table.size(), first, ranges));
      ASSERT_FALSE(ranges.empty());
      EXPECT_EQ(ranges.back().end, expected.size()) << "code units covered";
      for (size_t unit = 0; unit < expected.size(); ++unit) {
        ASSERT_EQ(lineAt(table.data(), table.size(), first, static_cast<uint32_t>(unit)),
                  expected[unit])
            << "code unit " << unit;
        if (expected[unit] - first > 100) ++far_lines;
      }
      EXPECT_EQ(lineAt(table.data(), table.size(), first, static_cast<uint32_t>(expected.size())),
                -1);
    }
    EXPECT_GE(code_objects, 7);
    EXPECT_GT(far_lines, 0) << "far_jump's multi-chunk deltas were not exercised";
  }
}

TEST(CpythonLineTable, Python311) {
  checkAgainstPython(11);
}
TEST(CpythonLineTable, Python312) {
  checkAgainstPython(12);
}
TEST(CpythonLineTable, Python313) {
  checkAgainstPython(13);
}

TEST(CpythonLineTable, EachForm) {
  // Entries: short form (code 0, 2 units), one-line form +1 (code 11, 1 unit),
  // no columns -3 (code 13, 3 units), long form +200 (code 14, 1 unit),
  // no location (code 15, 2 units), short form (1 unit: the line before).
  const std::vector<uint8_t> t = {
      0x80 | (0 << 3) | 1,
      0x05,  // short, length 2
      0x80 | (11 << 3) | 0,
      0x04,
      0x08,  // one line +1
      0x80 | (13 << 3) | 2,
      0x07,  // svarint 7 = -3
      0x80 | (14 << 3) | 0,
      0x50,
      0x06,
      0x00,
      0x01,
      0x02,                  // svarint 400 = +200 (0x50 0x06), end +0, cols
      0x80 | (15 << 3) | 1,  // no location, 2 units
      0x80 | (0 << 3) | 0,
      0x01,  // short, 1 unit
  };
  std::vector<LineRange> r;
  ASSERT_TRUE(decodeLineTable(t.data(), t.size(), 10, r));
  ASSERT_EQ(r.size(), 6u);
  const int lines[] = {10, 10, 11, 8, 8, 8, 208, -1, -1, 208};
  for (uint32_t u = 0; u < 10; ++u) EXPECT_EQ(lineAt(t.data(), t.size(), 10, u), lines[u]) << u;
  EXPECT_EQ(r[4].start, 7u);
  EXPECT_EQ(r[4].end, 9u);
}

TEST(CpythonLineTable, MalformedStopsWithoutReadingPast) {
  // A continuation byte where an entry must start.
  const std::vector<uint8_t> stray = {0x05};
  std::vector<LineRange> r;
  EXPECT_FALSE(decodeLineTable(stray.data(), stray.size(), 1, r));
  EXPECT_TRUE(r.empty());
  // A long form cut short: the ranges before it stay.
  const std::vector<uint8_t> cut = {0x80, 0x01, 0x80 | (14 << 3), 0x50};
  r.clear();
  EXPECT_FALSE(decodeLineTable(cut.data(), cut.size(), 1, r));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(lineAt(cut.data(), cut.size(), 1, 0), 1);
  EXPECT_EQ(lineAt(cut.data(), cut.size(), 1, 1), -1);
  // A varint that never ends.
  std::vector<uint8_t> endless = {0x80 | (13 << 3)};
  endless.insert(endless.end(), 40, 0x7f);
  r.clear();
  EXPECT_FALSE(decodeLineTable(endless.data(), endless.size(), 1, r));
  EXPECT_EQ(lineAt(endless.data(), 0, 1, 0), -1);
}

}  // namespace
}  // namespace strobe::cpython
