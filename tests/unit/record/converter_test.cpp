// The converter on hand-made records: mappings, return-address adjustment,
// context markers, fork/exec and thread names.
#include "record/converter.hpp"

#include "model/compact.hpp"

#include <gtest/gtest.h>

namespace strobe::record {
namespace {

perf::Mmap2Record mmap(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
                       std::string_view file) {
  perf::Mmap2Record r{};
  r.pid = pid;
  r.tid = pid;
  r.addr = addr;
  r.len = len;
  r.pgoff = pgoff;
  r.filename = file;
  return r;
}

perf::SampleRecord sample(uint32_t pid, uint32_t tid, const std::vector<uint64_t>& chain,
                          uint64_t time = 1000, uint64_t period = 5) {
  perf::SampleRecord r{};
  r.pid = pid;
  r.tid = tid;
  r.time = time;
  r.period = period;
  r.ip = chain.size() > 1 ? chain[1] : 0;
  r.callchain = chain.data();
  r.callchain_len = chain.size();
  return r;
}

std::vector<model::Location> frames(const model::Profile& p, const model::Sample& s) {
  std::vector<model::Location> out;
  p.forEachFrame(s.stack, [&](model::LocationId l) { out.push_back(p.locations()[l]); });
  return out;
}

TEST(Converter, LeafIsExactCallersAreReturnAddressMinusOne) {
  model::Profile p;
  Converter c(p, 100);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0x1000, "/bin/app"));
  std::vector<uint64_t> chain = {perf::kContextUser, 0x401234, 0x405678, 0x409abc};
  c.onSample(sample(7, 7, chain));
  ASSERT_EQ(p.samples().size(), 1u);
  const model::Sample& s = p.samples()[0];
  EXPECT_EQ(s.time_ns, 900u);
  EXPECT_EQ(s.weight, 5u);
  auto f = frames(p, s);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].address, 0x401234u);
  EXPECT_EQ(f[0].offset, 0x1234u + 0x1000u);
  EXPECT_EQ(f[1].address, 0x405677u);
  EXPECT_EQ(f[2].address, 0x409abbu);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "/bin/app");
}

perf::TaskRecord task(bool fork, uint32_t pid, uint32_t tid, uint64_t time) {
  perf::TaskRecord t{};
  t.is_fork = fork;
  t.pid = pid;
  t.ppid = pid;
  t.tid = tid;
  t.ptid = pid;
  t.time = time;
  return t;
}

TEST(Converter, ThreadsThatExitUnsampledAreCounted) {
  model::Profile p;
  Converter c(p, 100);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0, "/bin/app"));
  std::vector<uint64_t> chain = {perf::kContextUser, 0x401234};
  const uint64_t ms = 1'000'000;  // a sample's period
  c.onSample(record::sample(7, 8, chain, 1000, ms));
  c.onSample(record::sample(7, 8, chain, 1500, ms));
  // Thread 8 was sampled; 9 and 10 were not; thread 12 of process 13 is
  // outside the pid filter.
  c.setPidFilter({7});
  c.onSample(record::sample(13, 12, chain, 1600, ms));
  c.onTask(task(false, 7, 8, 2000));
  c.onTask(task(false, 7, 9, 2100));
  c.onTask(task(false, 7, 10, 2200));
  c.onTask(task(false, 13, 12, 2250));
  // Thread id 8 reused by a new thread that exits unsampled.
  c.onTask(task(true, 7, 8, 2350));
  c.onTask(task(false, 7, 8, 2400));
  EXPECT_EQ(c.stats().unsampled_threads, 3u);
  EXPECT_EQ(c.stats().sampled_weight, 2 * ms);
}

// Without -k, a sample in the kernel is one [kernel] frame on top of the
// user stack that entered the kernel; its first user frame is the
// interrupted pc (exact), the others return addresses.
TEST(Converter, KernelTimeIsOneFrameOnItsUserStack) {
  model::Profile p;
  Converter c(p, 0);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0, "/bin/app"));
  // As exclude_callchain_kernel leaves it: the user part only.
  std::vector<uint64_t> user_only = {perf::kContextUser, 0x401000, 0x402001};
  perf::SampleRecord in_kernel = sample(7, 7, user_only);
  in_kernel.ip = 0xffffffff81000000ULL;
  c.onSample(in_kernel);
  // A kernel part, had it been recorded, is not kept either.
  std::vector<uint64_t> both = {perf::kContextKernel, 0xffffffff81000000ULL, perf::kContextUser,
                                0x401000, 0x402001};
  c.onSample(sample(7, 7, both));
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[0].stack, p.samples()[1].stack);
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "[kernel]");
  ASSERT_EQ(f[0].lines.size(), 1u);
  EXPECT_EQ(p.str(p.functions()[f[0].lines[0].function].name), "[kernel]");
  EXPECT_EQ(f[1].address, 0x401000u);
  EXPECT_EQ(f[2].address, 0x402000u);
  // A sample in user space has no [kernel] frame.
  c.onSample(sample(7, 7, {perf::kContextUser, 0x401000, 0x402001}));
  EXPECT_EQ(frames(p, p.samples()[2]).size(), 2u);
}

TEST(Converter, TheIdleTaskIsLeftOut) {
  model::Profile p;
  Converter c(p, 0);
  perf::SampleRecord idle = sample(0, 0, {});
  idle.ip = 0xffffffff81000000ULL;
  c.onSample(idle);
  EXPECT_TRUE(p.samples().empty());
  EXPECT_EQ(c.stats().samples, 0u);
}

TEST(Converter, KernelFramesAreKeptWithTheKernelModule) {
  model::Profile p;
  Converter c(p, 0);
  c.setKernelFrames(true);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0, "/bin/app"));
  std::vector<uint64_t> chain = {perf::kContextKernel,
                                 0xffffffff81000010ULL,
                                 0xffffffff81000abcULL,
                                 perf::kContextUser,
                                 0x401000,
                                 0x402001};
  c.onSample(sample(7, 7, chain));
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "[kernel.kallsyms]");
  EXPECT_EQ(f[0].address, 0xffffffff81000010ULL);  // the leaf: exact
  EXPECT_EQ(f[0].offset, f[0].address);
  EXPECT_EQ(f[1].address, 0xffffffff81000abbULL);  // a return address - 1
  EXPECT_EQ(f[1].offset, f[1].address);
  EXPECT_EQ(f[1].module, f[0].module);
  EXPECT_EQ(p.str(p.modules()[f[2].module].path), "/bin/app");
  EXPECT_EQ(f[2].address, 0x401000u);  // the interrupted user pc: exact
  EXPECT_EQ(f[3].address, 0x402000u);
}

TEST(Converter, KernelOnlySampleAndGuestMarkers) {
  model::Profile p;
  Converter c(p, 0);
  c.setKernelFrames(true);
  // A kernel thread: no user part. Guest markers switch frames off.
  std::vector<uint64_t> chain = {perf::kContextKernel, 0xffffffff81000010ULL, perf::kContextGuest,
                                 0xffffffff81000020ULL};
  c.onSample(sample(2, 2, chain));
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].address, 0xffffffff81000010ULL);
}

TEST(Converter, PidFilterKeepsOnlyTheTargets) {
  model::Profile p;
  Converter c(p, 0);
  c.setPidFilter({7});
  std::vector<uint64_t> chain = {perf::kContextUser, 0x401000};
  c.onSample(sample(7, 8, chain));
  c.onSample(sample(9, 9, chain));
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0].tid, 8);
  EXPECT_EQ(c.stats().filtered, 1u);
}

TEST(Converter, UnmappedAddressesAreKeptAndCounted) {
  model::Profile p;
  Converter c(p, 0);
  std::vector<uint64_t> chain = {perf::kContextUser, 0x1234};
  c.onSample(sample(9, 9, chain));
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].module, model::kNone);
  EXPECT_EQ(f[0].address, 0x1234u);
  EXPECT_EQ(c.stats().unmapped_frames, 1u);
}

// A broken frame chain can hold any value: those in the ranges where the
// converter keeps its own pseudo addresses (build-id frames, Python
// frames) are unmapped frames like any other, not pseudo addresses it never
// made (strobe record -a crashed on one).
TEST(Converter, ChainValuesInThePseudoRangesAreUnmappedFrames) {
  model::Profile p;
  Converter c(p, 0);
  const uint64_t build_id_range = 0xffe0'0000'1234'5679ULL;
  const uint64_t python_range = 0xfff0'0000'0000'0003ULL;
  std::vector<uint64_t> chain = {perf::kContextUser, 0x1234, build_id_range, python_range};
  c.onSample(sample(9, 9, chain));
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1].module, model::kNone);
  EXPECT_EQ(f[1].address, build_id_range - 1);
  EXPECT_EQ(f[2].module, model::kNone);
  EXPECT_EQ(f[2].address, python_range - 1);
  EXPECT_EQ(c.stats().unmapped_frames, 3u);
}

TEST(Converter, ForkCopiesTheAddressSpaceAndExecClearsIt) {
  model::Profile p;
  Converter c(p, 0);
  c.onMmap(mmap(10, 0x400000, 0x1000, 0, "/bin/parent"));
  perf::CommRecord comm{};
  comm.pid = comm.tid = 10;
  comm.comm = "parent";
  c.onComm(comm);
  perf::TaskRecord fork{};
  fork.is_fork = true;
  fork.pid = fork.tid = 11;
  fork.ppid = fork.ptid = 10;
  c.onTask(fork);
  ASSERT_NE(p.findThread(11), nullptr);
  EXPECT_EQ(p.findThread(11)->name, "parent") << "a child starts with its parent's name";
  std::vector<uint64_t> chain = {perf::kContextUser, 0x400010};
  c.onSample(sample(11, 11, chain));
  EXPECT_NE(frames(p, p.samples()[0])[0].module, model::kNone);

  perf::CommRecord exec{};
  exec.pid = exec.tid = 11;
  exec.comm = "child";
  exec.exec = true;
  c.onComm(exec);
  EXPECT_EQ(p.findThread(11)->name, "child");
  c.onSample(sample(11, 11, chain));
  EXPECT_EQ(frames(p, p.samples()[1])[0].module, model::kNone) << "exec dropped old mappings";
  c.onMmap(mmap(11, 0x400000, 0x1000, 0, "/bin/child"));
  c.onSample(sample(11, 11, chain));
  auto f = frames(p, p.samples()[2]);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "/bin/child");
}

TEST(Converter, NewThreadsShareTheProcessAndGetItsName) {
  model::Profile p;
  Converter c(p, 0);
  perf::CommRecord comm{};
  comm.pid = comm.tid = 20;
  comm.comm = "server";
  c.onComm(comm);
  perf::TaskRecord clone{};
  clone.is_fork = true;
  clone.pid = clone.ppid = 20;
  clone.tid = 21;
  clone.ptid = 20;
  c.onTask(clone);
  ASSERT_NE(p.findThread(21), nullptr);
  EXPECT_EQ(p.findThread(21)->pid, 20);
  EXPECT_EQ(p.findThread(21)->name, "server");
}

TEST(Converter, LostAndThrottleAreCounted) {
  model::Profile p;
  Converter c(p, 0);
  perf::LostRecord lost{};
  lost.lost = 12;
  c.onLost(lost);
  perf::ThrottleRecord th{};
  th.throttle = true;
  c.onThrottle(th);
  EXPECT_EQ(c.stats().lost, 12u);
  EXPECT_EQ(c.stats().throttled, 1u);
}

}  // namespace
}  // namespace strobe::record

namespace strobe::record {
namespace {

TEST(Converter, ZeroReturnAddressEndsTheChain) {
  model::Profile p;
  Converter c(p, 0);
  std::vector<uint64_t> chain = {perf::kContextUser, 0x401000, 0x402001, 0};
  perf::SampleRecord r{};
  r.pid = r.tid = 3;
  r.callchain = chain.data();
  r.callchain_len = chain.size();
  c.onSample(r);
  int n = 0;
  p.forEachFrame(p.samples()[0].stack, [&](model::LocationId) { ++n; });
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace strobe::record

namespace strobe::record {
namespace {

// A long-running session (strobe agent) compacts the Profile: the converter
// follows the renumbered stacks and forgets processes that exited before
// the cut-off, keeping the others.
TEST(Converter, FollowsACompactionAndForgetsExitedProcesses) {
  model::Profile p;
  Converter c(p, 0);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0, "/bin/app"));
  c.onMmap(mmap(9, 0x400000, 0x10000, 0, "/bin/other"));
  std::vector<uint64_t> old_chain = {perf::kContextUser, 0x401000, 0x402000};
  std::vector<uint64_t> new_chain = {perf::kContextUser, 0x403000, 0x402000};
  c.onSample(sample(7, 7, old_chain, 100));
  c.onSample(sample(7, 7, new_chain, 200));
  ASSERT_EQ(p.stacks().size(), 3u);  // root 0x402000 -> {0x401000, 0x403000}
  perf::TaskRecord exit{};
  exit.is_fork = false;
  exit.pid = 9;
  exit.tid = 9;
  exit.time = 150;
  c.onTask(exit);

  model::Compaction cut = model::compactProfile(p, 150, c.liveStacks());
  c.afterCompaction(cut);
  c.forgetExited(160);
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.stacks().size(), 2u);
  // The same stack again interns to the kept node, not a stale id.
  c.onSample(sample(7, 7, new_chain, 300));
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[1].stack, p.samples()[0].stack);
  EXPECT_EQ(p.stacks().size(), 2u);
  // Process 9 exited before the cut-off: its mappings are gone; 7 keeps its.
  c.onSample(sample(9, 9, {perf::kContextUser, 0x401000}, 400));
  EXPECT_EQ(p.locations()[p.stacks()[p.samples().back().stack].location].module, model::kNone);
  c.onSample(sample(7, 7, {perf::kContextUser, 0x401000}, 500));
  EXPECT_NE(p.locations()[p.stacks()[p.samples().back().stack].location].module, model::kNone);
}

}  // namespace
}  // namespace strobe::record

namespace strobe::record {
namespace {

// A capture engine that could not read a sample's user stack says so: the
// stack ends for that reason, not for a broken frame-pointer chain.
TEST(Converter, AnUnreadableUserStackEndsAsAnUnreadableFrame) {
  model::Profile p;
  Converter c(p, 0);
  c.onMmap(mmap(7, 0x400000, 0x10000, 0, "/bin/app"));
  std::vector<uint64_t> none;
  SampleExtras unreadable;
  unreadable.user_stack_unreadable = true;
  perf::SampleRecord r = sample(7, 7, none);
  r.ip = 0x401234;
  c.onSample(r, unreadable);
  c.onSample(r);
  ASSERT_EQ(p.samples().size(), 2u);
  EXPECT_EQ(p.samples()[0].stack_end, model::StackEnd::kBadFrame);
  EXPECT_EQ(p.samples()[1].stack_end, model::StackEnd::kNotJudged);
  EXPECT_EQ(p.samples()[0].stack, p.samples()[1].stack);  // the leaf alone, both
}

}  // namespace
}  // namespace strobe::record
