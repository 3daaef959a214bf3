// The stack-completeness line: shares by how stacks ended, the entry judged
// from symbols when the recorder did not judge it, and the advice given.
#include "output/stack_completeness.hpp"

#include <gtest/gtest.h>

#include "model/completeness.hpp"

namespace strobe::output {
namespace {

using model::StackEnd;

// Samples: `entry` reach a clone3 frame, the others stop at a worker frame.
model::Profile profileWith(const std::string& mode, uint32_t copy,
                           std::initializer_list<std::pair<StackEnd, int>> ends,
                           bool on_entry_stack) {
  model::Profile p;
  p.meta().call_graph = mode;
  p.meta().stack_copy_bytes = copy;
  model::ModuleId libc = p.internModule("/usr/lib/libc.so.6", "");
  model::FunctionId f_clone = p.internFunction("clone3", "clone3", "", 0);
  model::FunctionId f_work = p.internFunction("work()", "_Z4workv", "", 0);
  model::LocationId l_clone = p.internLocation(libc, 0x100, 0x7f0000000100);
  p.mutableLocations()[l_clone].lines = {{f_clone, 0}};
  model::LocationId l_work = p.internLocation(libc, 0x200, 0x7f0000000200);
  p.mutableLocations()[l_work].lines = {{f_work, 0}};
  model::StackId root = p.internStack(model::kNone, l_clone);
  model::StackId full = p.internStack(root, l_work);
  model::StackId partial = p.internStack(model::kNone, l_work);
  for (auto [end, n] : ends) {
    for (int i = 0; i < n; ++i) {
      p.addSample({0, 1, 0, on_entry_stack ? full : partial, 1000, end});
    }
  }
  return p;
}

TEST(StackCompleteness, DwarfTruncatedAtTheCopySuggestsALargerOne) {
  auto p =
      profileWith("dwarf", 16384, {{StackEnd::kEntry, 987}, {StackEnd::kStackCopy, 13}}, false);
  EXPECT_EQ(stackCompletenessLine(p),
            "98.7% of samples reached the thread's entry; 1.3% truncated at the 16 KiB stack "
            "copy: try -g dwarf,32768");
}

TEST(StackCompleteness, LargestCopyAndOtherReasons) {
  auto p = profileWith("auto", 65528,
                       {{StackEnd::kEntry, 6},
                        {StackEnd::kStackCopy, 1},
                        {StackEnd::kNoCfi, 1},
                        {StackEnd::kBadFrame, 1},
                        {StackEnd::kSpliced, 1}},
                       false);
  EXPECT_EQ(stackCompletenessLine(p),
            "60.0% of samples reached the thread's entry; 10.0% truncated at the 65528-byte "
            "stack copy; 10.0% stopped at code without unwind information; 10.0% stopped at an "
            "unmapped or unreadable frame; 10.0% ended early in the frame-pointer chain");
}

TEST(StackCompleteness, FramePointerStacksAreJudgedByTheirFrames) {
  auto reached = profileWith("fp", 0, {{StackEnd::kNotJudged, 10}}, true);
  EXPECT_EQ(stackCompletenessLine(reached), "100.0% of samples reached the thread's entry");
  auto broken = profileWith("fp", 0, {{StackEnd::kNotJudged, 10}}, false);
  EXPECT_EQ(stackCompletenessLine(broken),
            "0.0% of samples reached the thread's entry; 100.0% ended early (broken "
            "frame-pointer chain): try -g dwarf");
  // A spliced stack that reaches clone3 counts as reached.
  auto spliced =
      profileWith("dwarf", 8192, {{StackEnd::kSpliced, 1999}, {StackEnd::kBadFrame, 1}}, true);
  EXPECT_EQ(stackCompletenessLine(spliced),
            ">99.9% of samples reached the thread's entry; <0.1% stopped at an unmapped or "
            "unreadable frame");
}

TEST(StackCompleteness, NoSamplesNoLine) {
  model::Profile p;
  EXPECT_EQ(stackCompletenessLine(p), "");
  EXPECT_TRUE(model::isThreadEntry("start_thread"));
  EXPECT_TRUE(model::isThreadEntry("_start"));
  EXPECT_FALSE(model::isThreadEntry("main"));
}

}  // namespace
}  // namespace strobe::output
