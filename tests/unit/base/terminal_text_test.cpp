// terminalSafe: every byte a terminal would act on is written as \xNN;
// printable text, UTF-8 included, is unchanged.
#include "base/terminal_text.hpp"

#include <gtest/gtest.h>

namespace strobe {
namespace {

TEST(TerminalText, PrintableTextIsUnchanged) {
  EXPECT_EQ(terminalSafe("work_six() shares.cpp:11"), "work_six() shares.cpp:11");
  EXPECT_EQ(terminalSafe("\xE7\xBA\xBF\xE7\xA8\x8B \xC3\xA9"), "\xE7\xBA\xBF\xE7\xA8\x8B \xC3\xA9");
  EXPECT_EQ(terminalSafe(""), "");
}

TEST(TerminalText, ControlsAndInvalidBytesAreEscaped) {
  EXPECT_EQ(terminalSafe("a\x1b]0;pwned\x07z"), "a\\x1b]0;pwned\\x07z");
  EXPECT_EQ(terminalSafe("line\nforged\r\t"), "line\\x0aforged\\x0d\\x09");
  EXPECT_EQ(terminalSafe("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminalSafe(std::string("nul\0x", 5)), "nul\\x00x");
  // C1 controls as UTF-8 (U+009B is CSI), and bytes that are not UTF-8.
  EXPECT_EQ(terminalSafe("\xC2\x9B"
                         "31m"),
            "\\xc2\\x9b31m");
  EXPECT_EQ(terminalSafe("\xC2\xA0ok"), "\xC2\xA0ok");  // U+00A0 is printable
  EXPECT_EQ(terminalSafe("bad\xFF\x9B"
                         "2J"),
            "bad\\xff\\x9b2J");
  EXPECT_EQ(terminalSafe("cut\xE7\xBA"), "cut\\xe7\\xba");
}

}  // namespace
}  // namespace strobe
