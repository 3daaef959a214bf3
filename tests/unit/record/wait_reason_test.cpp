// Why a thread blocked, from the kernel functions on its stack at the
// switch-out (the stacks as this kernel's unwinder gives them).
#include "record/wait_reason.hpp"

#include <gtest/gtest.h>

namespace strobe::record {
namespace {

using model::OffCpuReason;

OffCpuReason classify(std::vector<std::string> names) {
  return classifyKernelStack(names);
}

TEST(WaitReason, SleepLockAndIoFromTheirKernelStacks) {
  EXPECT_EQ(
      classify({"__schedule", "schedule", "do_nanosleep", "hrtimer_nanosleep", "common_nsleep",
                "__x64_sys_clock_nanosleep", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"}),
      OffCpuReason::kSleep);
  EXPECT_EQ(classify({"__schedule", "schedule", "futex_wait_queue", "__futex_wait", "futex_wait",
                      "do_futex", "__x64_sys_futex", "do_syscall_64"}),
            OffCpuReason::kLock);
  EXPECT_EQ(
      classify({"__schedule", "schedule", "pipe_read", "vfs_read", "ksys_read", "do_syscall_64"}),
      OffCpuReason::kIo);
  EXPECT_EQ(classify({"__schedule", "schedule", "schedule_hrtimeout_range_clock", "ep_poll",
                      "do_epoll_wait", "__x64_sys_epoll_wait"}),
            OffCpuReason::kIo);
  // A page fault that waits for the disk.
  EXPECT_EQ(classify({"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
                      "filemap_fault", "handle_mm_fault", "exc_page_fault", "asm_exc_page_fault"}),
            OffCpuReason::kIo);
  // A kernel lock met inside a read is a lock.
  EXPECT_EQ(
      classify({"__schedule", "schedule", "rwsem_down_read_slowpath", "down_read", "ksys_read"}),
      OffCpuReason::kLock);
}

TEST(WaitReason, OtherAndUnknown) {
  EXPECT_EQ(classify({"__schedule", "schedule", "do_wait", "kernel_wait4", "__do_sys_wait4",
                      "do_syscall_64"}),
            OffCpuReason::kOther);
  EXPECT_EQ(classify({"__schedule", "schedule", "sigsuspend", "__x64_sys_rt_sigsuspend"}),
            OffCpuReason::kOther);
  EXPECT_EQ(classify({}), OffCpuReason::kUnknown);
}

TEST(WaitReason, SuffixesAndModulesAreIgnored) {
  EXPECT_EQ(reasonOfKernelFunction("do_nanosleep.constprop.0"), OffCpuReason::kSleep);
  EXPECT_EQ(reasonOfKernelFunction("__x64_sys_read.cold"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfKernelFunction("ksys_pread64"), OffCpuReason::kIo);
  EXPECT_EQ(reasonOfKernelFunction("__arm64_sys_futex"), OffCpuReason::kLock);
  EXPECT_EQ(reasonOfKernelFunction("nfs_read_folio [nfs]"), OffCpuReason::kUnknown);
  EXPECT_EQ(reasonOfKernelFunction("schedule"), OffCpuReason::kUnknown);
  EXPECT_EQ(reasonOfKernelFunction("__x64_sys_getpid"), OffCpuReason::kUnknown);
}

TEST(WaitReason, ApplyLeavesPreemptedAndCpuSamplesAlone) {
  model::Profile p;
  model::Sample cpu;
  cpu.weight = 1;
  p.addSample(cpu);
  model::Sample off;
  off.kind = model::SampleKind::kOffCpu;
  off.weight = 5;
  p.addSample(off);
  off.off_cpu_reason = OffCpuReason::kPreempted;
  p.addSample(off);
  OffCpuKernelChains c;
  c.chains = {{0x10, 0x20}, {0x30}};
  c.samples = {{0, 0}, {1, 0}, {2, 0}, {1, 7}, {99, 0}};  // the last two name nothing
  auto names = [](uint64_t a) -> std::string { return a == 0x20 ? "__x64_sys_nanosleep" : ""; };
  EXPECT_EQ(applyWaitReasons(p, c, names), 1u);
  EXPECT_EQ(p.samples()[0].off_cpu_reason, OffCpuReason::kUnknown);
  EXPECT_EQ(p.samples()[1].off_cpu_reason, OffCpuReason::kSleep);
  EXPECT_EQ(p.samples()[2].off_cpu_reason, OffCpuReason::kPreempted);
  // Hidden kernel symbols (every name unknown) say nothing.
  p.mutableSamples()[1].off_cpu_reason = OffCpuReason::kUnknown;
  c.samples = {{1, 1}};
  EXPECT_EQ(applyWaitReasons(p, c, names), 0u);
  EXPECT_EQ(p.samples()[1].off_cpu_reason, OffCpuReason::kUnknown);
}

}  // namespace
}  // namespace strobe::record
