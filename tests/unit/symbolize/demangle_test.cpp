#include "symbolize/demangle.hpp"

#include <gtest/gtest.h>

namespace strobe::symbolize {
namespace {

TEST(DemangleTest, CxxNames) {
  EXPECT_EQ(demangle("_ZN7fixture6scaledIiEET_S1_i"), "int fixture::scaled<int>(int, int)");
  EXPECT_EQ(demangle("_ZN11fixture_lib7Counter4bumpEi"), "fixture_lib::Counter::bump(int)");
  EXPECT_EQ(demangle("_ZL12fixtureLocali"), "fixtureLocal(int)");
  EXPECT_EQ(demangle("_Z3foov.cold"), "foo() [clone .cold]");
}

TEST(DemangleTest, OtherNamesComeBackUnchanged) {
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("fixture_leaf"), "fixture_leaf");
  EXPECT_EQ(demangle("i"), "i");  // a type name to __cxa_demangle, a symbol here
  EXPECT_EQ(demangle(""), "");
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_Zgarbage!"), "_Zgarbage!");
  EXPECT_EQ(demangle(std::string_view("_Z3foov_tail", 7)), "foo()");  // not NUL-terminated
}

}  // namespace
}  // namespace strobe::symbolize
