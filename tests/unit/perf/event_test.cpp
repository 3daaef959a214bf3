#include "perf/event.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace strobe::perf {
namespace {

perf_event_attr attrFor(const std::string& name, bool kernel = false, uint32_t freq = 99) {
  EventSpec spec;
  spec.name = name;
  spec.kernel = kernel;
  spec.frequency = freq;
  return makeAttr(spec, /*inherit=*/false, /*enable_on_exec=*/false);
}

TEST(PerfEvent, KnownEventNames) {
  auto cpu = eventTypeConfig("cpu-clock");
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->first, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(cpu->second, uint64_t{PERF_COUNT_SW_CPU_CLOCK});
  auto cycles = eventTypeConfig("cycles");
  ASSERT_TRUE(cycles.ok());
  EXPECT_EQ(cycles->first, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(cycles->second, uint64_t{PERF_COUNT_HW_CPU_CYCLES});
  for (const char* name : {"task-clock", "page-faults", "context-switches", "instructions",
                           "cache-misses", "branch-misses"}) {
    auto tc = eventTypeConfig(name);
    ASSERT_TRUE(tc.ok()) << name;
    EXPECT_EQ(eventName(tc->first, tc->second), name);
  }
  EXPECT_EQ(eventName(PERF_TYPE_TRACEPOINT, 12), "2:12");
}

TEST(PerfEvent, UnknownEventNameIsAUsageError) {
  auto r = eventTypeConfig("cpu-cycles-please");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
  EXPECT_EQ(r.error().message, "unknown event 'cpu-cycles-please'");
  EXPECT_EQ(r.error().hint,
            "known events: cpu-clock, task-clock, page-faults, context-switches, cycles, "
            "instructions, cache-misses, branch-misses");
}

TEST(PerfEvent, MakeAttrFrequencyMode) {
  EventSpec spec;
  perf_event_attr a = makeAttr(spec, /*inherit=*/true, /*enable_on_exec=*/true, 4096);
  EXPECT_EQ(a.size, sizeof(perf_event_attr));
  EXPECT_EQ(a.type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(a.config, uint64_t{PERF_COUNT_SW_CPU_CLOCK});
  EXPECT_EQ(a.sample_type, uint64_t{PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN});
  EXPECT_EQ(a.freq, 1u);
  EXPECT_EQ(a.sample_freq, 99u);
  EXPECT_EQ(a.disabled, 1u);
  EXPECT_EQ(a.inherit, 1u);
  EXPECT_EQ(a.enable_on_exec, 1u);
  EXPECT_EQ(a.exclude_kernel, 1u);
  EXPECT_EQ(a.exclude_callchain_kernel, 1u);
  EXPECT_EQ(a.exclude_hv, 1u);
  EXPECT_EQ(a.mmap, 1u);
  EXPECT_EQ(a.mmap2, 1u);
  EXPECT_EQ(a.comm, 1u);
  EXPECT_EQ(a.comm_exec, 1u);
  EXPECT_EQ(a.task, 1u);
  EXPECT_EQ(a.sample_id_all, 1u);
  EXPECT_EQ(a.use_clockid, 1u);
  EXPECT_EQ(a.clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(a.watermark, 1u);
  EXPECT_EQ(a.wakeup_watermark, 4096u);
  EXPECT_EQ(a.build_id, 1u);
}

TEST(PerfEvent, MakeAttrPeriodModeKernelNoCallchain) {
  EventSpec spec;
  spec.period = 1'000'000;
  spec.callchain = false;
  spec.kernel = true;
  perf_event_attr a = makeAttr(spec, false, false);
  EXPECT_EQ(a.freq, 0u);
  EXPECT_EQ(a.sample_period, 1'000'000u);
  EXPECT_EQ(a.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  EXPECT_EQ(a.exclude_kernel, 0u);
  EXPECT_EQ(a.exclude_callchain_kernel, 0u);
  EXPECT_EQ(a.inherit, 0u);
  EXPECT_EQ(a.enable_on_exec, 0u);
  EXPECT_EQ(a.wakeup_watermark, 0u);
}

TEST(PerfEvent, UnknownNameInAttrIsRefusedByOpen) {
  perf_event_attr a = attrFor("nope");
  EXPECT_EQ(a.type, kNoEventType);
  auto fd = openEvent(a, 0, -1);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.error().kind, ErrorKind::kUsage);
}

TEST(PerfEvent, PermissionAtParanoid2) {
  Error user = classifyOpenError(EACCES, attrFor("cpu-clock"), 4242, 2);
  EXPECT_EQ(user.kind, ErrorKind::kPermission);
  EXPECT_EQ(user.message,
            "perf_event_open refused for pid 4242: no permission to profile it (another user's "
            "process?)");
  EXPECT_EQ(user.hint, "run strobe as that process's user, or grant CAP_SYS_PTRACE (e.g. sudo)");

  Error kernel = classifyOpenError(EACCES, attrFor("cpu-clock", true), 4242, 2);
  EXPECT_EQ(kernel.kind, ErrorKind::kPermission);
  EXPECT_EQ(kernel.message,
            "perf_event_open refused: kernel.perf_event_paranoid is 2, which forbids kernel "
            "sampling for unprivileged users");
  EXPECT_EQ(kernel.hint,
            "run: sudo sysctl kernel.perf_event_paranoid=1 (or grant CAP_PERFMON), or drop "
            "-k/--kernel");
}

TEST(PerfEvent, PermissionAtParanoid3) {
  Error user = classifyOpenError(EACCES, attrFor("cpu-clock"), 0, 3);
  EXPECT_EQ(user.kind, ErrorKind::kPermission);
  EXPECT_EQ(user.message,
            "perf_event_open refused: kernel.perf_event_paranoid is 3, which forbids profiling "
            "for unprivileged users");
  EXPECT_EQ(user.hint, "run: sudo sysctl kernel.perf_event_paranoid=2 (or grant CAP_PERFMON)");

  Error kernel = classifyOpenError(EPERM, attrFor("cpu-clock", true), 0, 3);
  EXPECT_EQ(kernel.kind, ErrorKind::kPermission);
  EXPECT_EQ(kernel.message, user.message);
  EXPECT_EQ(kernel.hint, "run: sudo sysctl kernel.perf_event_paranoid=1 (or grant CAP_PERFMON)");
}

TEST(PerfEvent, PermissionCpuWideSelfAndUnknown) {
  Error wide = classifyOpenError(EACCES, attrFor("cpu-clock"), -1, 1);
  EXPECT_EQ(wide.message,
            "perf_event_open refused: kernel.perf_event_paranoid is 1, which forbids CPU-wide "
            "profiling for unprivileged users");
  EXPECT_EQ(wide.hint, "run: sudo sysctl kernel.perf_event_paranoid=0 (or grant CAP_PERFMON)");

  Error self = classifyOpenError(EPERM, attrFor("cpu-clock"), 0, 2);
  EXPECT_EQ(self.message,
            "perf_event_open refused although kernel.perf_event_paranoid is 2 (a seccomp filter "
            "or security module, e.g. in a container?)");

  Error unknown = classifyOpenError(EACCES, attrFor("cpu-clock"), 0, kParanoidUnknown);
  EXPECT_EQ(unknown.kind, ErrorKind::kPermission);
  EXPECT_EQ(unknown.message,
            "perf_event_open refused, and kernel.perf_event_paranoid is unreadable");
}

// A seccomp filter (as containers install) that refused the call is named
// as the cause, whatever the target (libstrobe profiles its own threads:
// "another user's process" would be wrong).
TEST(PerfEvent, PermissionUnderASeccompFilter) {
  Error own = classifyOpenError(EPERM, attrFor("cpu-clock"), 4242, 2, 0, true);
  EXPECT_EQ(own.kind, ErrorKind::kPermission);
  EXPECT_EQ(own.message, "perf_event_open is blocked by a seccomp filter (in a container?)");
  EXPECT_EQ(own.hint,
            "allow perf_event_open in the container's seccomp profile (docker run --security-opt "
            "seccomp=PROFILE), or run outside the container");
}

TEST(PerfEvent, HardwareEventWithoutPmu) {
  Error e = classifyOpenError(ENOENT, attrFor("cycles"), 0, 2);
  EXPECT_EQ(e.kind, ErrorKind::kUnsupported);
  EXPECT_EQ(e.message,
            "event 'cycles' is not available: no PMU here (a VM without hardware counters?)");
  EXPECT_EQ(e.hint, "use -e cpu-clock");
  EXPECT_EQ(e.describe(), e.message);  // no redundant strerror

  Error op = classifyOpenError(EOPNOTSUPP, attrFor("branch-misses"), 0, 2);
  EXPECT_EQ(op.kind, ErrorKind::kUnsupported);
  EXPECT_EQ(op.message,
            "event 'branch-misses' is not available: no PMU here (a VM without hardware "
            "counters?)");

  Error sw = classifyOpenError(ENOENT, attrFor("page-faults"), 0, 2);
  EXPECT_EQ(sw.message, "event 'page-faults' is not supported by this kernel");
}

TEST(PerfEvent, OtherErrors) {
  Error srch = classifyOpenError(ESRCH, attrFor("cpu-clock"), 31337, 2);
  EXPECT_EQ(srch.kind, ErrorKind::kNotFound);
  EXPECT_EQ(srch.message, "no process with pid 31337");

  Error mfile = classifyOpenError(EMFILE, attrFor("cpu-clock"), 0, 2);
  EXPECT_EQ(mfile.hint, "raise the limit: ulimit -n 65536");

  Error rate = classifyOpenError(EINVAL, attrFor("cpu-clock", false, 200000), 0, 2, 100000);
  EXPECT_EQ(rate.kind, ErrorKind::kUsage);
  EXPECT_EQ(rate.message,
            "sampling frequency 200000 Hz is above kernel.perf_event_max_sample_rate (100000)");
  EXPECT_EQ(rate.hint,
            "use -F 100000 or lower, or run: sudo sysctl "
            "kernel.perf_event_max_sample_rate=200000");

  Error inval = classifyOpenError(EINVAL, attrFor("task-clock"), -1, 2, 100000);
  EXPECT_EQ(inval.kind, ErrorKind::kGeneric);
  EXPECT_EQ(inval.errnum, EINVAL);
  EXPECT_EQ(inval.message, "perf_event_open failed for event 'task-clock' on all tasks");
  EXPECT_EQ(inval.describe(),
            "perf_event_open failed for event 'task-clock' on all tasks: Invalid argument");
}

TEST(PerfEvent, ParsesCpuLists) {
  auto a = parseCpuList("0-3,5\n");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<int>{0, 1, 2, 3, 5}));
  auto b = parseCpuList("7");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, (std::vector<int>{7}));
  auto c = parseCpuList("2-3,0-2");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::vector<int>{0, 1, 2, 3}));
  for (const char* bad : {"", "\n", "3-1", "a", "1,,2", "-1", "0-", "1-99999999"}) {
    auto r = parseCpuList(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "'";
    if (!r.ok()) {
      EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
    }
  }
}

TEST(PerfEvent, OnlineCpusAndSysctls) {
  std::vector<int> cpus = onlineCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(onlineCpuCount(), static_cast<int>(cpus.size()));
  EXPECT_NE(readParanoid(), kParanoidUnknown);  // every Linux with perf_event has it
  EXPECT_GT(readMaxSampleRate(), 0u);
}

}  // namespace
}  // namespace strobe::perf
