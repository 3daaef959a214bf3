// Live tests: real perf events on this very thread. They skip (and say why)
// only when the kernel refuses perf_event_open for permission reasons.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include "base/clock.hpp"
#include "perf/event.hpp"
#include "perf/records.hpp"
#include "perf/ring_buffer.hpp"

namespace strobe::perf {
namespace {

// Spins until this thread has used `ns` of CPU time.
__attribute__((noinline)) double burnCpu(uint64_t ns) {
  const uint64_t start = clockNs(CLOCK_THREAD_CPUTIME_ID);
  volatile double x = 1.0;
  while (clockNs(CLOCK_THREAD_CPUTIME_ID) - start < ns) {
    for (int i = 0; i < 10000; ++i) x = std::sqrt(x + i);
  }
  return x;
}

// Maps our own executable with PROT_EXEC so the kernel emits an MMAP2 record.
std::string mapSelfExecutable() {
  char path[PATH_MAX] = {};
  if (::realpath("/proc/self/exe", path) == nullptr) return {};
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return {};
  ::munmap(p, 4096);
  return path;
}

TEST(PerfLive, CpuClockSamplesTheCallingThread) {
  EventSpec spec;
  spec.frequency = 499;
  perf_event_attr attr = makeAttr(spec, /*inherit=*/false, /*enable_on_exec=*/false);
  auto fd = openEvent(attr, /*pid=*/0, /*cpu=*/-1);
  if (!fd.ok() && fd.error().kind == ErrorKind::kPermission) {
    GTEST_SKIP() << "the kernel forbids perf_event_open here: " << fd.error().message;
  }
  ASSERT_TRUE(fd.ok()) << fd.error().describe() << " / " << fd.error().hint;
  auto ring = RingBuffer::map(fd->get(), 16);
  ASSERT_TRUE(ring.ok()) << ring.error().describe();

  const uint64_t t0 = monotonicNs();
  ASSERT_TRUE(enableEvent(fd->get()).ok());
  const std::string exe = mapSelfExecutable();
  burnCpu(200'000'000);
  ASSERT_TRUE(disableEvent(fd->get()).ok());
  const uint64_t t1 = monotonicNs();

  size_t samples = 0, user_chains = 0, malformed = 0;
  bool saw_exe = false;
  uint8_t exe_build_id_size = 0;
  const auto tid = static_cast<uint32_t>(::gettid());
  ring->drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
    auto rec = decodeRecord(hdr, bytes, size, attr.sample_type);
    if (!rec.ok()) {
      ++malformed;
      ADD_FAILURE() << rec.error().message;
      return;
    }
    if (const auto* s = std::get_if<SampleRecord>(&*rec)) {
      ++samples;
      EXPECT_EQ(s->tid, tid);
      EXPECT_GT(s->period, 0u);
      EXPECT_GE(s->time, t0);  // CLOCK_MONOTONIC timestamps
      EXPECT_LE(s->time, t1);
      if (s->callchain_len >= 2 && s->callchain[0] == kContextUser) ++user_chains;
    } else if (const auto* m = std::get_if<Mmap2Record>(&*rec)) {
      if (!exe.empty() && m->filename == exe) {
        saw_exe = true;
        exe_build_id_size = m->build_id_size;
        EXPECT_GE(m->time, t0);
      }
    }
  });
  EXPECT_EQ(ring->corruptCount(), 0u);
  EXPECT_EQ(malformed, 0u);
  EXPECT_GE(samples, 5u) << "~100 expected at 499 Hz over 200 ms of CPU";
  EXPECT_EQ(user_chains, samples) << "every callchain should start with PERF_CONTEXT_USER";
  if (!exe.empty()) {
    EXPECT_TRUE(saw_exe) << "no MMAP2 record for " << exe;
    // build_id_size is 20 when the kernel (5.12+) could read the build id
    // without faulting, 0 otherwise; both are valid.
    EXPECT_TRUE(exe_build_id_size == 0 || exe_build_id_size == 20);
    std::printf("mmap2 of the test binary: build_id_size %u\n", exe_build_id_size);
  }
}

TEST(PerfLive, CyclesIsUnsupportedWithoutAPmu) {
  EventSpec spec;
  spec.name = "cycles";
  perf_event_attr attr = makeAttr(spec, false, false);
  auto fd = openEvent(attr, 0, -1);
  if (fd.ok()) {
    GTEST_SKIP() << "opening 'cycles' succeeded: this machine has a PMU with hardware counters";
  }
  if (fd.error().kind == ErrorKind::kPermission) {
    GTEST_SKIP() << "the kernel forbids perf_event_open here: " << fd.error().message;
  }
  EXPECT_EQ(fd.error().kind, ErrorKind::kUnsupported) << fd.error().describe();
  EXPECT_EQ(fd.error().message,
            "event 'cycles' is not available: no PMU here (a VM without hardware counters?)");
  EXPECT_EQ(fd.error().hint, "use -e cpu-clock");
}

}  // namespace
}  // namespace strobe::perf
