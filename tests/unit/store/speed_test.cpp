// Write and read times of a 1,000,000-sample profile. Disabled by default
// (tests never assert wall-clock times); run it by hand:
//   store_test --gtest_also_run_disabled_tests --gtest_filter='*Speed*'
#include <chrono>
#include <cstdio>

#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST_F(StoreTest, DISABLED_SpeedOfAMillionSamples) {
  model::Profile p = syntheticProfile(1'000'000);
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(store::writeProfile(p, file("big.db")));
  double write_s = secondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  auto back = store::readProfile(file("big.db"));
  double read_s = secondsSince(t0);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->samples().size(), 1'000'000u);
  std::printf("1,000,000 samples: write %.3f s, read %.3f s, file %.1f MB\n", write_s, read_s,
              static_cast<double>(std::filesystem::file_size(file("big.db"))) / 1e6);
}

}  // namespace
}  // namespace strobe::test
