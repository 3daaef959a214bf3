// Why a thread blocked, from the symbolized stack where it left its CPU:
// the kernel's frames (with -k) as this kernel names them, else the C
// library's function it blocked in.
#include "record/wait_reason.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record/converter.hpp"

namespace strobe::record {
namespace {

using model::OffCpuReason;

OffCpuReason kernel(std::vector<std::string> names) {
  std::vector<WaitFrame> f;
  for (const std::string& n : names) f.push_back(WaitFrame{n, true});
  return classifyWait(f);
}

OffCpuReason user(std::vector<std::string> names) {
  std::vector<WaitFrame> f;
  for (const std::string& n : names) f.push_back(WaitFrame{n, false});
  return classifyWait(f);
}

TEST(WaitReason, KernelStacksSayWhy) {
  EXPECT_EQ(kernel({"__schedule", "schedule", "do_nanosleep", "hrtimer_nanosleep", "common_nsleep",
                    "__x64_sys_clock_nanosleep", "do_syscall_64"}),
            OffCpuReason::kSleep);
  EXPECT_EQ(kernel({"__schedule", "schedule", "futex_wait_queue", "__futex_wait", "futex_wait",
                    "do_futex", "__x64_sys_futex", "do_syscall_64"}),
            OffCpuReason::kLock);
  EXPECT_EQ(kernel({"__schedule", "schedule", "pipe_read", "vfs_read", "ksys_read"}),
            OffCpuReason::kIo);
  EXPECT_EQ(kernel({"__schedule", "schedule", "schedule_hrtimeout_range_clock", "ep_poll",
                    "do_epoll_wait", "__x64_sys_epoll_wait"}),
            OffCpuReason::kIo);
  // A page fault that waits for the disk, and a kernel lock met in a read.
  EXPECT_EQ(kernel({"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
                    "filemap_fault", "handle_mm_fault", "exc_page_fault", "asm_exc_page_fault"}),
            OffCpuReason::kIo);
  EXPECT_EQ(kernel({"__schedule", "rwsem_down_read_slowpath", "down_read", "ksys_read"}),
            OffCpuReason::kLock);
  EXPECT_EQ(kernel({"__schedule", "do_wait", "kernel_wait4", "__do_sys_wait4"}),
            OffCpuReason::kOther);
}

TEST(WaitReason, TheCLibrarysFunctionSaysWhy) {
  // As glibc 2.36's symbols and DWARF name them.
  EXPECT_EQ(user({"__GI___clock_nanosleep", "__GI___nanosleep", "nap", "worker"}),
            OffCpuReason::kSleep);
  EXPECT_EQ(user({"__GI___libc_read", "wait_pipe", "worker"}), OffCpuReason::kIo);
  EXPECT_EQ(user({"__read_nocancel", "main"}), OffCpuReason::kIo);
  EXPECT_EQ(user({"__libc_recv", "serve"}), OffCpuReason::kIo);
  EXPECT_EQ(user({"__GI___poll", "loop"}), OffCpuReason::kIo);
  EXPECT_EQ(user({"epoll_wait", "loop"}), OffCpuReason::kIo);
  EXPECT_EQ(user({"__futex_abstimed_wait_common64", "__futex_abstimed_wait_common",
                  "__new_sem_wait_slow64", "wait_lock"}),
            OffCpuReason::kLock);
  EXPECT_EQ(user({"futex_wait", "__GI___lll_lock_wait", "___pthread_mutex_lock", "wait_lock"}),
            OffCpuReason::kLock);
  EXPECT_EQ(user({"__GI___pthread_clockjoin_ex", "main"}), OffCpuReason::kLock);
  EXPECT_EQ(user({"__GI___wait4", "main"}), OffCpuReason::kOther);
  // A generic wrapper says nothing; the function that called it may.
  EXPECT_EQ(user({"syscall", "futex_wait_private", "main"}), OffCpuReason::kLock);
  // Deeper frames are the program's: names like "read" there say nothing.
  EXPECT_EQ(user({"syscall", "a", "b", "c", "read"}), OffCpuReason::kOther);
  EXPECT_EQ(user({"Socket::read(int)", "main"}), OffCpuReason::kOther);
  EXPECT_EQ(user({}), OffCpuReason::kUnknown);
}

TEST(WaitReason, KernelFramesComeFirstThenTheUserOnes) {
  std::vector<WaitFrame> f = {{"__schedule", true},
                              {"schedule", true},
                              {"do_nanosleep", true},
                              {"__GI___libc_read", false}};
  EXPECT_EQ(classifyWait(f), OffCpuReason::kSleep);
  f = {{"__schedule", true}, {"__GI___libc_read", false}};
  EXPECT_EQ(classifyWait(f), OffCpuReason::kIo);
}

TEST(WaitReason, SuffixesAndModulesAreIgnored) {
  EXPECT_EQ(reasonOfKernelFunction("do_nanosleep.constprop.0"), OffCpuReason::kSleep);
  EXPECT_EQ(reasonOfKernelFunction("__x64_sys_read.cold"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfKernelFunction("ksys_pread64"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfKernelFunction("__arm64_sys_futex"), OffCpuReason::kLock);
  EXPECT_EQ(reasonOfKernelFunction("nfs_read_folio [nfs]"), OffCpuReason::kUnknown);
  EXPECT_EQ(reasonOfKernelFunction("__x64_sys_getpid"), OffCpuReason::kUnknown);
  EXPECT_EQ(reasonOfUserFunction("read@@GLIBC_2.2.5"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfUserFunction("__pread64"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfUserFunction("__clock_nanosleep_time64"), OffCpuReason::kSleep);
  EXPECT_EQ(reasonOfUserFunction("compute"), OffCpuReason::kUnknown);
}

// On a profile: each off-CPU sample from its symbolized stack, preempted
// ones and CPU samples left alone.
TEST(WaitReason, AppliedToTheOffCpuSamplesOfAProfile) {
  model::Profile p;
  model::ModuleId libc = p.internModule("/usr/lib/x86_64-linux-gnu/libc.so.6", "");
  model::ModuleId kernel_module = p.internModule(kKernelModule, "");
  auto at = [&](model::ModuleId m, uint64_t off, const char* fn) {
    model::LocationId l = p.internLocation(m, off, off);
    p.mutableLocations()[l].lines = {{p.internFunction(fn, fn, "", 0), 0}};
    return l;
  };
  model::StackId nap = p.internStack(model::kNone, at(libc, 0x10, "nap"));
  model::StackId sleep = p.internStack(nap, at(libc, 0x20, "__GI___clock_nanosleep"));
  model::StackId in_kernel = p.internStack(sleep, at(kernel_module, 0x30, "futex_wait_queue"));
  auto add = [&](model::StackId s, model::SampleKind k, OffCpuReason r) {
    model::Sample x;
    x.stack = s;
    x.kind = k;
    x.off_cpu_reason = r;
    x.weight = 1;
    p.addSample(x);
  };
  add(sleep, model::SampleKind::kCpu, OffCpuReason::kUnknown);
  add(sleep, model::SampleKind::kOffCpu, OffCpuReason::kUnknown);
  add(sleep, model::SampleKind::kOffCpu, OffCpuReason::kPreempted);
  add(in_kernel, model::SampleKind::kOffCpu, OffCpuReason::kUnknown);
  add(model::kNone, model::SampleKind::kOffCpu, OffCpuReason::kUnknown);
  EXPECT_EQ(applyWaitReasons(p), 2u);
  EXPECT_EQ(p.samples()[0].off_cpu_reason, OffCpuReason::kUnknown);
  EXPECT_EQ(p.samples()[1].off_cpu_reason, OffCpuReason::kSleep);
  EXPECT_EQ(p.samples()[2].off_cpu_reason, OffCpuReason::kPreempted);
  EXPECT_EQ(p.samples()[3].off_cpu_reason, OffCpuReason::kLock);  // the kernel frame decides
  EXPECT_EQ(p.samples()[4].off_cpu_reason, OffCpuReason::kUnknown);
}

}  // namespace
}  // namespace strobe::record
