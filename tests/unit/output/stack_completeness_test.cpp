// The stack-completeness line: shares of the sampled weight by how stacks
// ended, the entry judged from the frames the reports show (the recorder's
// verdict only says why the others ended), and the advice given.
#include "output/stack_completeness.hpp"

#include <gtest/gtest.h>

#include "model/completeness.hpp"
#include "model/synthetic_frames.hpp"

namespace strobe::output {
namespace {

using model::StackEnd;

enum class Shape { kEntry, kPartial, kMissingCaller, kKernelOnly };

struct Builder {
  model::Profile p;
  model::StackId full, partial, missing, kernel;

  explicit Builder(const std::string& mode, uint32_t copy = 0) {
    p.meta().call_graph = mode;
    p.meta().stack_copy_bytes = copy;
    p.meta().event = "cpu-clock";
    p.meta().target = "command";
    model::ModuleId libc = p.internModule("/usr/lib/libc.so.6", "");
    model::FunctionId f_clone = p.internFunction("clone3", "clone3", "", 0);
    model::FunctionId f_work = p.internFunction("work()", "_Z4workv", "", 0);
    model::LocationId l_clone = p.internLocation(libc, 0x100, 0x7f0000000100);
    p.mutableLocations()[l_clone].lines = {{f_clone, 0}};
    model::LocationId l_work = p.internLocation(libc, 0x200, 0x7f0000000200);
    p.mutableLocations()[l_work].lines = {{f_work, 0}};
    model::StackId root = p.internStack(model::kNone, l_clone);
    full = p.internStack(root, l_work);
    partial = p.internStack(model::kNone, l_work);
    missing = p.internStack(p.internStack(root, model::missingCallerLocation(p)), l_work);
    kernel = p.internStack(model::kNone, model::kernelTimeLocation(p));
  }
  // n samples of `weight` each.
  Builder& add(Shape shape, StackEnd end, int n, uint64_t weight = 1000) {
    const model::StackId s = shape == Shape::kEntry           ? full
                             : shape == Shape::kPartial       ? partial
                             : shape == Shape::kMissingCaller ? missing
                                                              : kernel;
    for (int i = 0; i < n; ++i) p.addSample({0, 1, 0, s, weight, end});
    return *this;
  }
};

TEST(StackCompleteness, DwarfTruncatedAtTheCopySuggestsALargerOne) {
  Builder b("dwarf", 16384);
  b.add(Shape::kEntry, StackEnd::kEntry, 987).add(Shape::kPartial, StackEnd::kStackCopy, 13);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "98.7% of the sampled CPU reached the thread's entry; 1.3% truncated at the 16 KiB "
            "stack copy: try -g dwarf,32768");
}

TEST(StackCompleteness, LargestCopyAndOtherReasons) {
  Builder b("auto", 65528);
  b.add(Shape::kEntry, StackEnd::kEntry, 5)
      .add(Shape::kPartial, StackEnd::kStackCopy, 1)
      .add(Shape::kPartial, StackEnd::kNoCfi, 1)
      .add(Shape::kPartial, StackEnd::kBadFrame, 1)
      .add(Shape::kPartial, StackEnd::kEntry, 1)
      .add(Shape::kPartial, StackEnd::kSpliced, 1);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "50.0% of the sampled CPU reached the thread's entry; 10.0% truncated at the "
            "65528-byte stack copy; 10.0% stopped at code without unwind information; 10.0% "
            "stopped at an unmapped or unreadable frame; 10.0% ended at an outermost frame that "
            "is no known thread entry; 10.0% ended early in the frame-pointer chain");
}

TEST(StackCompleteness, SharesAreOfTheWeightNotOfTheSampleCount) {
  Builder b("fp");
  b.add(Shape::kEntry, StackEnd::kNotJudged, 1, 3000).add(Shape::kPartial, StackEnd::kNotJudged, 3);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "50.0% of the sampled CPU reached the thread's entry; 50.0% ended early (broken "
            "frame-pointer chain): try -g auto");
  b.p.meta().event = "page-faults";
  EXPECT_EQ(stackCompletenessLine(b.p).substr(0, 60),
            "50.0% of the sampled faults reached the thread's entry; 50.0");
}

TEST(StackCompleteness, TheStackShownDecidesNotTheRecordersVerdict) {
  // -g auto once stopped at _start's frame (a bad frame, it said) with
  // _start on the stack: the stack reaches the entry.
  Builder b("auto", 16384);
  b.add(Shape::kEntry, StackEnd::kBadFrame, 10);
  EXPECT_EQ(stackCompletenessLine(b.p), "100.0% of the sampled CPU reached the thread's entry");
}

TEST(StackCompleteness, FramePointerStacksAreJudgedByTheirFrames) {
  Builder reached("fp");
  reached.add(Shape::kEntry, StackEnd::kNotJudged, 10);
  EXPECT_EQ(stackCompletenessLine(reached.p),
            "100.0% of the sampled CPU reached the thread's entry");
  Builder broken("fp");
  broken.add(Shape::kPartial, StackEnd::kNotJudged, 10);
  EXPECT_EQ(stackCompletenessLine(broken.p),
            "0.0% of the sampled CPU reached the thread's entry; 100.0% ended early (broken "
            "frame-pointer chain): try -g auto");
  // A spliced stack that reaches clone3 counts as reached.
  Builder spliced("dwarf", 8192);
  spliced.add(Shape::kEntry, StackEnd::kSpliced, 1999).add(Shape::kPartial, StackEnd::kBadFrame, 1);
  EXPECT_EQ(stackCompletenessLine(spliced.p),
            ">99.9% of the sampled CPU reached the thread's entry; <0.1% stopped at an unmapped "
            "or unreadable frame");
}

TEST(StackCompleteness, AMissingCallerIsNeverComplete) {
  // fixture_phases under -g fp: main is skipped (phase_one has no frame),
  // though the stack goes on to __libc_start_call_main.
  Builder b("fp");
  b.add(Shape::kMissingCaller, StackEnd::kNotJudged, 9).add(Shape::kEntry, StackEnd::kNotJudged, 1);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "10.0% of the sampled CPU reached the thread's entry; 90.0% skipped the caller of a "
            "function without a frame pointer ([missing caller]): try -g auto");
}

TEST(StackCompleteness, LibstrobeProfilesGetNoAdviceOnMinusG) {
  Builder b("fp");
  b.p.meta().target.clear();  // libstrobe's profiles name no target
  b.add(Shape::kMissingCaller, StackEnd::kNotJudged, 1)
      .add(Shape::kPartial, StackEnd::kNotJudged, 1);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "0.0% of the sampled CPU reached the thread's entry; 50.0% skipped the caller of a "
            "function without a frame pointer ([missing caller]); 50.0% ended early (broken "
            "frame-pointer chain)");
}

TEST(StackCompleteness, AKernelThreadHasNoUserStackToReach) {
  Builder b("fp");
  b.add(Shape::kKernelOnly, StackEnd::kNotJudged, 4).add(Shape::kPartial, StackEnd::kNotJudged, 1);
  EXPECT_EQ(stackCompletenessLine(b.p).substr(0, 55),
            "80.0% of the sampled CPU reached the thread's entry; 20");
}

TEST(StackCompleteness, NoSamplesNoLine) {
  model::Profile p;
  EXPECT_EQ(stackCompletenessLine(p), "");
}

// With off-CPU time (record --off-cpu) the line is of the view's time, and
// an interval with no stack at all (a thread off CPU when recording began),
// which no report draws, is said apart instead of counted as incomplete.
TEST(StackCompleteness, OffCpuViewsAndIntervalsWithoutAStack) {
  Builder b("auto");
  b.p.meta().off_cpu = 1;
  b.add(Shape::kEntry, StackEnd::kNotJudged, 3);
  model::Sample off{0, 1, 0, b.full, 1000, StackEnd::kNotJudged};
  off.kind = model::SampleKind::kOffCpu;
  b.p.addSample(off);
  off.stack = model::kNone;
  off.weight = 2'000'000;
  b.p.addSample(off);
  EXPECT_EQ(stackCompletenessLine(b.p),
            "100.0% of the sampled wall time reached the thread's entry; not counted: 2.0 ms "
            "with no stack (off CPU since before recording began)");
  b.p.setView(model::View::kOffCpu);
  EXPECT_EQ(stackCompletenessLine(b.p).substr(0, 45),
            "100.0% of the sampled off-CPU time reached th");
  b.p.setView(model::View::kCpu);
  EXPECT_EQ(stackCompletenessLine(b.p).substr(0, 40), "100.0% of the sampled CPU reached the th");
}

TEST(ThreadEntries, TheUsualRuntimesAreKnown) {
  for (const char* name :
       {"_start", "__libc_start_main", "__libc_start_main@@GLIBC_2.34", "__libc_start_call_main",
        "start_thread", "clone", "__clone", "clone3", "__clone3", "runtime.goexit", "runtime.main",
        "runtime.mstart", "runtime.mstart0", "runtime.rt0_go",
        "std::sys::unix::thread::Thread::new::thread_start",
        "std::sys::pal::unix::thread::Thread::new::thread_start", "ret_from_fork"}) {
    EXPECT_TRUE(model::isThreadEntry(name)) << name;
  }
  for (const char* name : {"main", "worker(int)", "runtime.goexit1", "runtime.mcall", "_start_x",
                           "my::thread::Thread::new::thread_start", "@", "", "[kernel]",
                           "[missing caller]", "start_thread_x"}) {
    EXPECT_FALSE(model::isThreadEntry(name)) << name;
  }
}

}  // namespace
}  // namespace strobe::output
