// Throttled sampling: when kernel.perf_event_max_sample_rate is low (the
// kernel lowers it on its own when its sampling interrupt runs long), the
// kernel throttles a busy thread's event at every tick. strobe gives the
// throttled time back to the sample each throttle began with, so a thread's
// sampled CPU stays its own clock's, and says so in the header.
// The test lowers the limit to 1000 Hz while it runs (root; restored after)
// and records at 999 Hz: 4 samples per tick at HZ=250 hit the limit.
// Label e2e, SERIAL: the limit is the whole machine's.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

constexpr const char* kMaxRate = "/proc/sys/kernel/perf_event_max_sample_rate";

// Sets the kernel's sampling limit for the test's lifetime.
class MaxRate {
 public:
  explicit MaxRate(const std::string& rate) {
    std::ifstream in(kMaxRate);
    if (!std::getline(in, old_)) return;
    ok_ = write(rate);
  }
  ~MaxRate() {
    if (ok_) write(old_);
  }
  MaxRate(const MaxRate&) = delete;
  MaxRate& operator=(const MaxRate&) = delete;
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  static bool write(const std::string& v) {
    std::ofstream out(kMaxRate);
    out << v << "\n";
    out.flush();
    return static_cast<bool>(out);
  }
  std::string old_;
  bool ok_ = false;
};

TEST(Throttle, AThrottledThreadKeepsItsCpuTime) {
  MaxRate limit("1000");
  if (!limit.ok()) GTEST_SKIP() << "cannot write " << kMaxRate << " (the test needs root)";
  const std::string dir = makeTempDir();
  const std::string db = dir + "/throttled.db";
  Ran ran = runProcess({kStrobe, "record", "-F", "999", "-o", db, "--", kFixtures + "fixture_soak",
                        "6", "100", kFixtures + "libfixture_burn.so"});
  ASSERT_EQ(ran.status, 0) << ran.err;

  model::Profile p = loadRecording(db);
  ASSERT_GT(p.meta().throttle_events, 0u) << "the kernel did not throttle: " << ran.err;
  EXPECT_GT(p.meta().throttle_weighted_ns, 0u);
  EXPECT_LE(p.meta().throttle_weighted_ns, p.meta().throttled_ns);
  const auto steady_tid = static_cast<int32_t>(outputNumber(ran.out, "steady_tid"));
  const double steady_s = static_cast<double>(outputNumber(ran.out, "steady_cpu_ns")) / 1e9;
  uint64_t weight = 0;
  for (const model::Sample& s : p.samples()) weight += s.tid == steady_tid ? s.weight : 0;
  const double sampled_s = static_cast<double>(weight) / 1e9;
  std::printf("steady thread: %.3f s sampled, %.3f s by its clock; %llu throttles\n", sampled_s,
              steady_s, static_cast<unsigned long long>(p.meta().throttle_events));
  EXPECT_NEAR(sampled_s / steady_s, 1.0, 0.03) << ran.err;

  EXPECT_NE(ran.err.find("strobe: warning: the kernel throttled sampling "), std::string::npos)
      << ran.err;
  EXPECT_NE(ran.err.find("hint: lower -F, or use -g fp (a smaller sample): the kernel lowers "
                         "kernel.perf_event_max_sample_rate when its sampling interrupt runs long "
                         "(it is 1000 now)"),
            std::string::npos)
      << ran.err;
  Ran report = runProcess({kStrobe, "report", db, "--top", "3"});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("throttled: the kernel throttled sampling "), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("is weighted onto the sample each throttle began with"),
            std::string::npos)
      << report.out;
  removeTree(dir);
}

}  // namespace
}  // namespace strobe::test
