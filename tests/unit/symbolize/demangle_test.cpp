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

TEST(DemangleTest, RustLegacyAndV0) {
  // Legacy: an Itanium-looking name whose last component is the 17h<hash>.
  EXPECT_EQ(demangle("_ZN3std2rt10lang_start17h0123456789abcdefE"), "std::rt::lang_start");
  EXPECT_EQ(demangle("_ZN4core3ptr13drop_in_place17h1a2b3c4d5e6f7a8bE"),
            "core::ptr::drop_in_place");
  // v0 (-C symbol-mangling-version=v0).
  EXPECT_EQ(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
  EXPECT_EQ(demangle("_RNvNtCs1234_7mycrate5inner3bar"), "mycrate::inner::bar");
  EXPECT_EQ(demangle("_Rgarbage"), "_Rgarbage");
}

TEST(DemangleTest, CloneSuffixes) {
  EXPECT_EQ(cloneBase("_Z3fooi.part.0"), "_Z3fooi");
  EXPECT_EQ(cloneSuffix("_Z3fooi.part.0"), ".part.0");
  EXPECT_EQ(cloneBase("_Z3fooi.cold"), "_Z3fooi");
  EXPECT_EQ(cloneBase("_Z3fooi.isra.0.constprop.1"), "_Z3fooi");
  EXPECT_EQ(cloneBase("bar.constprop.0.isra.0"), "bar");
  EXPECT_EQ(cloneBase("main.lto_priv.0"), "main");
  EXPECT_EQ(cloneBase("_Z3foov"), "_Z3foov");
  EXPECT_EQ(cloneBase("name.with.dots"), "name.with.dots");
  EXPECT_EQ(cloneBase(".part.0"), ".part.0");  // nothing before the suffix
  EXPECT_EQ(cloneBase("foo.123"), "foo.123");  // a number alone is no clone kind
  EXPECT_FALSE(isClone("_Z3foov"));
  EXPECT_TRUE(isClone("_Z3foov.cold.1"));
  EXPECT_EQ(demangle(cloneBase("_ZL3midi.part.0")), "mid(int)");
}

TEST(DemangleTest, LikeBinutils) {
  EXPECT_EQ(demangleLikeBinutils("_Z3foov"), "foo()");
  EXPECT_EQ(demangleLikeBinutils("_Z3foov@plt"), "foo()@plt");
  EXPECT_EQ(demangleLikeBinutils("._Z3foov"), ".foo()");
  EXPECT_EQ(demangleLikeBinutils("main"), "main");
  EXPECT_EQ(demangleLikeBinutils("_Z3foov.part.0"), "foo() [clone .part.0]");
}

}  // namespace
}  // namespace strobe::symbolize
