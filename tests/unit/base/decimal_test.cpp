// parseCount: 1 to 9 decimal digits, nothing else.
#include "base/decimal.hpp"

#include <gtest/gtest.h>

namespace strobe {
namespace {

TEST(ParseCount, ReadsPlainDigits) {
  EXPECT_EQ(parseCount("0"), 0);
  EXPECT_EQ(parseCount("30"), 30);
  EXPECT_EQ(parseCount("999999999"), 999999999);
}

TEST(ParseCount, RefusesAnythingElse) {
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.5", "1000000000"}) {
    EXPECT_EQ(parseCount(bad), -1) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace strobe
