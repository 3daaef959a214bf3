// The one duration parser every subcommand uses: the forms it accepts and
// the exact error lines of each rejection.
#include "base/duration.hpp"

#include <gtest/gtest.h>

namespace strobe {
namespace {

constexpr uint64_t kNs = 1;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;

TEST(ParseDuration, EachUnit) {
  EXPECT_EQ(*parseDuration("2h"), 7'200 * kS);
  EXPECT_EQ(*parseDuration("5m"), 300 * kS);
  EXPECT_EQ(*parseDuration("5min"), 300 * kS);
  EXPECT_EQ(*parseDuration("30s"), 30 * kS);
  EXPECT_EQ(*parseDuration("250ms"), 250 * kMs);
  EXPECT_EQ(*parseDuration("100us"), 100 * kUs);
  EXPECT_EQ(*parseDuration("10ns"), 10 * kNs);
}

TEST(ParseDuration, CompoundDecimalsAndPlainSeconds) {
  EXPECT_EQ(*parseDuration("1h30m"), 5'400 * kS);
  EXPECT_EQ(*parseDuration("1m30s"), 90 * kS);
  EXPECT_EQ(*parseDuration("1s500ms"), 1'500 * kMs);
  EXPECT_EQ(*parseDuration("2s250us"), 2 * kS + 250 * kUs);
  EXPECT_EQ(*parseDuration("1.5s"), 1'500 * kMs);
  EXPECT_EQ(*parseDuration("1.5h0.5m"), 5'430 * kS);
  EXPECT_EQ(*parseDuration("0.3s"), 300 * kMs);
  EXPECT_EQ(*parseDuration(".5s"), 500 * kMs);
  EXPECT_EQ(*parseDuration("10"), 10 * kS);
  EXPECT_EQ(*parseDuration("2.5"), 2'500 * kMs);
  EXPECT_EQ(*parseDuration("0.000000001"), 1 * kNs);
}

TEST(ParseDuration, ZeroIsTheCallersDecision) {
  EXPECT_EQ(*parseDuration("0"), 0u);
  EXPECT_EQ(*parseDuration("0s"), 0u);
  EXPECT_EQ(*parseDuration("0h0m"), 0u);
}

TEST(ParseDuration, LargestValue) {
  EXPECT_EQ(*parseDuration("18446744073709551615ns"), UINT64_MAX);
  EXPECT_EQ(*parseDuration("5124095h"), 5'124'095ULL * 3'600 * kS);
}

TEST(ParseDuration, MalformedTextSaysWhichFormsWork) {
  for (const char* bad : {"",      "s",     "ms",  ".",   ".s",   "5x",  "5parsec", "5S",
                          "1h30",  "30 1h", "-5s", "+5s", "5 s",  " 5s", "5s ",     "1.2.3s",
                          "1..2s", "m5",    "1e3", "inf", "0x10", "5s,", "1h 30m"}) {
    auto d = parseDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.error().message, "malformed duration '" + std::string(bad) + "'");
    EXPECT_EQ(d.error().hint, "use e.g. 30s, 1h30m, 250ms, 100us or plain seconds (2.5)");
    EXPECT_EQ(d.error().kind, ErrorKind::kUsage) << bad;
  }
}

TEST(ParseDuration, OverflowIsOutOfRange) {
  for (const char* big : {"18446744073709551616ns", "99999999999999999999999s", "5124096h",
                          "18446744073709551615ns1ns", "18446744073.8s"}) {
    auto d = parseDuration(big);
    ASSERT_FALSE(d.ok()) << big;
    EXPECT_EQ(d.error().message, "duration '" + std::string(big) + "' is out of range");
    EXPECT_EQ(d.error().hint, "give at most 584 years (2^64 ns)");
    EXPECT_EQ(d.error().kind, ErrorKind::kUsage) << big;
  }
}

}  // namespace
}  // namespace strobe
