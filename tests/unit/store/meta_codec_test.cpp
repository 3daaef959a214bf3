// The command's JSON encoding and the meta rows, on awkward values.
#include <gtest/gtest.h>

#include "store/meta_codec.hpp"

namespace strobe::store {
namespace {

TEST(CommandCodec, EncodesAsAJsonArray) {
  EXPECT_EQ(encodeCommand({}), "[]");
  EXPECT_EQ(encodeCommand({"./app", "a b", "say \"hi\"", "c:\\x", "l1\nl2", "\x01"}),
            R"(["./app","a b","say \"hi\"","c:\\x","l1\nl2","\u0001"])");
}

TEST(CommandCodec, RoundTripsAnyBytes) {
  std::vector<std::string> argv = {
      "", " ", "\"", "\\", "\t\r\n\b\f", "caf\xc3\xa9", "\xff\xfe", std::string("nul\0inside", 10)};
  auto back = decodeCommand(encodeCommand(argv));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, argv);
}

TEST(CommandCodec, DecodesOtherJsonSpellings) {
  auto v = decodeCommand(R"( [ "a\/b" , "\u00e9\ud83d\ude00" ] )");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, (std::vector<std::string>{"a/b", "\xc3\xa9\xf0\x9f\x98\x80"}));
}

TEST(CommandCodec, RejectsMalformedJson) {
  for (const char* bad : {"", "[", "]", "[\"a\"", "[\"a\",]", "[a]", "[\"a\"] x", "[\"\\q\"]",
                          "[\"\\u12\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "{\"a\":1}", "[1]"}) {
    EXPECT_FALSE(decodeCommand(bad).has_value()) << bad;
  }
}

TEST(MetaRows, EveryFieldRoundTrips) {
  model::Meta m;
  m.command = {"a", "b c"};
  m.pid = -5;
  m.start_realtime_ns = UINT64_MAX;
  m.start_monotonic_ns = 1;
  m.duration_ns = 2;
  m.frequency = UINT32_MAX;
  m.event = "cpu-clock";
  m.call_graph = "fp";
  m.hostname = "h";
  m.kernel = "k";
  m.strobe_version = "v";
  m.lost_samples = 3;
  m.throttle_events = 4;
  m.target_cpu_ns = 5;
  m.exit_status = 139;
  model::Meta back;
  for (const auto& [key, value] : metaRows(m, 1)) {
    EXPECT_FALSE(applyMetaRow(back, key, value).has_value()) << key;
  }
  EXPECT_EQ(back.command, m.command);
  EXPECT_EQ(back.pid, m.pid);
  EXPECT_EQ(back.start_realtime_ns, m.start_realtime_ns);
  EXPECT_EQ(back.frequency, m.frequency);
  EXPECT_EQ(back.strobe_version, m.strobe_version);
  EXPECT_EQ(back.exit_status, m.exit_status);
}

TEST(MetaRows, RejectsBadNumbersAndIgnoresUnknownKeys) {
  model::Meta m;
  EXPECT_EQ(applyMetaRow(m, "pid", "12a").value_or(""), "not a 32-bit integer");
  EXPECT_EQ(applyMetaRow(m, "frequency", "-1").value_or(""), "not a 32-bit unsigned integer");
  EXPECT_EQ(applyMetaRow(m, "frequency", "4294967296").value_or(""),
            "not a 32-bit unsigned integer");
  EXPECT_EQ(applyMetaRow(m, "lost_samples", "").value_or(""), "not a 64-bit unsigned integer");
  EXPECT_FALSE(applyMetaRow(m, "a_future_key", "anything").has_value());
}

}  // namespace
}  // namespace strobe::store
