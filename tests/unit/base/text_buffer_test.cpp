// TextBuffer: bytes written through room()/commit() and append() come out in
// order, across growth; clear() empties it and keeps its memory.
#include "base/text_buffer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace strobe {
namespace {

TEST(TextBufferTest, KeepsWhatWasWrittenAcrossGrowth) {
  TextBuffer b;
  EXPECT_TRUE(b.empty());
  b.append("");
  EXPECT_TRUE(b.empty());
  std::string want;
  for (int i = 0; i < 3000; ++i) {
    const std::string s = std::to_string(i) + ",";
    if (i % 2 == 0) {
      char* p = b.room(s.size() + 50);  // more room than is used
      for (char c : s) *p++ = c;
      b.commit(p);
    } else {
      b.append(s.substr(0, 1));
      b.append(std::string_view(s).substr(1));
    }
    want += s;
    b.append('|');
    want += '|';
  }
  ASSERT_EQ(b.size(), want.size());
  EXPECT_EQ(b.view(), want);
  EXPECT_EQ(std::string(b.data(), b.size()), want);
}

TEST(TextBufferTest, ClearKeepsTheMemory) {
  TextBuffer b;
  b.append(std::string(100000, 'x'));
  const char* before = b.data();
  b.clear();
  EXPECT_TRUE(b.empty());
  b.append(std::string(100000, 'y'));
  EXPECT_EQ(b.data(), before);
  EXPECT_EQ(b.view(), std::string(100000, 'y'));
}

}  // namespace
}  // namespace strobe
