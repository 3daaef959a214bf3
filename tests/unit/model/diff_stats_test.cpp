// strobe diff's statistics (model/diff_stats.hpp) against published tables
// (Student's t quantiles, Benjamini and Hochberg's 1995 worked example) and
// against simulation: batch means keep the false-positive rate of a test at
// its level when samples are correlated in time, where the variance of
// independent samples would not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "model/diff_stats.hpp"

namespace strobe::model::stats {
namespace {

TEST(DiffStats, StudentQuantilesMatchTables) {
  // Two-sided critical values from any table of Student's t.
  EXPECT_NEAR(studentCritical(0.05, 1), 12.706, 0.001);
  EXPECT_NEAR(studentCritical(0.05, 10), 2.228, 0.001);
  EXPECT_NEAR(studentCritical(0.01, 4), 4.604, 0.001);
  EXPECT_NEAR(studentCritical(0.001, 20), 3.850, 0.001);
  EXPECT_NEAR(studentCritical(0.10, 30), 1.697, 0.001);
  EXPECT_NEAR(studentCritical(0.05, kInfinity), 1.960, 0.001);
  // Fractional df (Welch's): 3.5747, from integrating the density numerically.
  EXPECT_NEAR(studentCritical(0.05, 2.5), 3.5747, 0.001);
  EXPECT_NEAR(studentTwoSidedP(2.228, 10), 0.05, 0.0005);
  EXPECT_NEAR(studentTwoSidedP(-2.228, 10), 0.05, 0.0005);
  EXPECT_NEAR(studentTwoSidedP(1.960, kInfinity), 0.05, 0.0005);
  EXPECT_DOUBLE_EQ(studentTwoSidedP(0, 5), 1.0);
  EXPECT_LT(studentTwoSidedP(50, 3), 1e-4);
  EXPECT_EQ(studentCritical(1.0, 5), 0.0);
}

TEST(DiffStats, BenjaminiHochbergWorkedExample) {
  // Benjamini & Hochberg (1995), section 4: 15 p-values, q = 0.05: the four
  // smallest are discoveries.
  const std::vector<double> p = {0.0201, 0.0001, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298, 0.0344,
                                 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000};
  const std::vector<bool> found = benjaminiHochberg(p, 0.05);
  const std::vector<bool> want = {false, true,  true,  true,  true,  false, false, false,
                                  false, false, false, false, false, false, false};
  EXPECT_EQ(found, want);
  EXPECT_TRUE(benjaminiHochberg({}, 0.05).empty());
  // Step-up: p_(2) = 0.04 <= 2 * 0.05 / 2 makes both discoveries.
  EXPECT_EQ(benjaminiHochberg(std::vector<double>{0.04, 0.03}, 0.05),
            (std::vector<bool>{true, true}));
}

TEST(DiffStats, WelchByHandForOneRunASide) {
  // se = sqrt(1 + 2), df = 3^2 / (1/9 + 4/4) = 8.1; t = 3 / sqrt(3) = 1.732:
  // two-sided p of t(8.1) at 1.732 is 0.121.
  const Comparison c = compare({10, 1, 9}, {13, 2, 4});
  EXPECT_DOUBLE_EQ(c.change, 3);
  EXPECT_NEAR(c.se, std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(c.df, 8.1, 1e-9);
  EXPECT_NEAR(c.p, 0.121, 0.002);
  EXPECT_EQ(compare({5, 0, kInfinity}, {5, 0, kInfinity}).p, 1.0);
  EXPECT_EQ(compare({5, 0, kInfinity}, {6, 0, kInfinity}).p, 0.0);
}

TEST(DiffStats, AcrossRunsUsesTheSpreadAboveTheRunsOwnNoise) {
  const std::vector<double> v = {10, 12, 14};
  Estimate e = acrossRuns(v, 0.1, 30);
  EXPECT_DOUBLE_EQ(e.value, 12);
  EXPECT_NEAR(e.variance, 4.0 / 3.0, 1e-12);  // s^2 = 4, over 3 runs
  EXPECT_DOUBLE_EQ(e.df, 2);
  // Runs that agree better than their own noise allows: that noise.
  e = acrossRuns(std::vector<double>{12, 12, 12}, 0.5, 30);
  EXPECT_DOUBLE_EQ(e.variance, 0.5);
  EXPECT_DOUBLE_EQ(e.df, 30);
}

TEST(DiffStats, RunsOnBothSidesPoolTheirSpreads) {
  // Base 10, 12, 14 (squares 8), new 20, 20, 20 (0): pooled s^2 = 8 / 4 = 2,
  // each mean's variance 2 / 3; se = sqrt(4 / 3), t = 8 / 1.1547 = 6.93 on
  // 4 df: p = 0.0023. Welch would have had the base's 2 df alone: p = 0.020.
  const std::vector<double> base = {10, 12, 14};
  const std::vector<double> next = {20, 20, 20};
  Comparison c = compare(acrossRuns(base, 0.01, 30), acrossRuns(next, 0.01, 30));
  EXPECT_DOUBLE_EQ(c.change, 8);
  EXPECT_NEAR(c.se, std::sqrt(4.0 / 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(c.df, 4);
  EXPECT_NEAR(c.p, 0.0023, 0.0002);
  // A side whose runs' own noise is above its share of the pooled spread
  // keeps that noise, on its degrees of freedom (Satterthwaite): 2/3 on 4
  // df plus 1 on 30: df = (5/3)^2 / ((2/3)^2 / 4 + 1 / 30).
  c = compare(acrossRuns(base, 0.01, 30), acrossRuns(next, 1.0, 30));
  EXPECT_NEAR(c.se, std::sqrt(2.0 / 3.0 + 1.0), 1e-12);
  EXPECT_NEAR(c.df, (25.0 / 9.0) / (4.0 / 9.0 / 4.0 + 1.0 / 30.0), 1e-9);
  // Unequal numbers of runs: Student's weights. 2 and 4 runs, squares 2 and
  // 8: s^2 = 10 / 4 = 2.5; variances 2.5 / 2 and 2.5 / 4.
  c = compare(acrossRuns(std::vector<double>{1, 3}, 0, 30),
              acrossRuns(std::vector<double>{0, 4, 2, 2}, 0, 30));
  EXPECT_NEAR(c.se, std::sqrt(1.875), 1e-12);
  EXPECT_DOUBLE_EQ(c.df, 4);
}

TEST(DiffStats, PooledRunsHoldTheLevelWhenTheSidesSpreadAlike) {
  // Three runs a side of the same process, each run's value normal: a 5%
  // test rejects about 5%; at the 0.1% a discovery among tens of rows
  // needs, about 0.1%. Pooling asks that the runs of both sides spread
  // alike, as runs of one machine do: in a simulation of 100,000 pairs
  // with one side's standard deviation twice the other's, these levels
  // were 6.2% and 0.17%; four times, 8.5% and 0.35%.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> run(100, 3);
  int rejects = 0;
  int strict = 0;
  const int pairs = 4000;
  for (int i = 0; i < pairs; ++i) {
    std::vector<double> b(3), n(3);
    for (double& v : b) v = run(rng);
    for (double& v : n) v = run(rng);
    const Comparison c = compare(acrossRuns(b, 0.01, 30), acrossRuns(n, 0.01, 30));
    rejects += c.p < 0.05;
    strict += c.p < 0.001;
  }
  EXPECT_NEAR(rejects, pairs * 5 / 100, pairs * 15 / 1000) << rejects;
  EXPECT_LE(strict, pairs * 4 / 1000) << strict;
}

TEST(DiffStats, WithVarianceAddsDegreesOfFreedomAsSatterthwaite) {
  // 1 on 7 df plus 1 on 7 df: 2 on 14; plus a known 1: 3 on 3^2 / (2^2 / 14) = 31.5.
  Estimate e = withVariance({5, 1, 7}, 1, 7);
  EXPECT_DOUBLE_EQ(e.value, 5);
  EXPECT_DOUBLE_EQ(e.variance, 2);
  EXPECT_NEAR(e.df, 14, 1e-12);
  e = withVariance({5, 2, 14}, 1, kInfinity);
  EXPECT_DOUBLE_EQ(e.variance, 3);
  EXPECT_NEAR(e.df, 31.5, 1e-12);
}

TEST(DiffStats, BatchMeansOfIndependentBlocks) {
  // 64 blocks with variance 4 each: the sum's variance is about 64 * 4.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(10, 2);
  double mean_var = 0;
  for (int rep = 0; rep < 400; ++rep) {
    std::vector<double> y(64);
    for (double& v : y) v = noise(rng);
    const std::vector<double> d(64, 1.0 / 64);
    const Estimate e = batchMeans(y, d);
    EXPECT_NEAR(e.value, 640, 60);
    mean_var += e.variance / 400;
  }
  // The largest of the estimates at 64, 32, 16 and 8 blocks: a little above
  // 256, never below it on average.
  EXPECT_GT(mean_var, 256 * 0.95);
  EXPECT_LT(mean_var, 256 * 1.8);
  // A ratio: y proportional to d has no residual, however d varies.
  std::vector<double> d(16), y(16);
  for (size_t b = 0; b < 16; ++b) {
    d[b] = 1.0 + static_cast<double>(b % 3);
    y[b] = 0.5 * d[b];
  }
  const Estimate e = batchMeans(y, d);
  EXPECT_DOUBLE_EQ(e.value, 0.5);
  EXPECT_NEAR(e.variance, 0.0, 1e-20);
}

// Samples of one run whose leaf is the watched function with a probability
// that switches between 0.2 and 0.6 in phases of ~`phase` samples on
// average (a Markov chain): the run's count of the function varies between
// runs far more than independent samples would.
double phasedRun(std::mt19937_64& rng, size_t samples, size_t phase, std::vector<double>& blocks,
                 double& sq) {
  std::uniform_real_distribution<double> u(0, 1);
  bool busy = u(rng) < 0.5;
  double count = 0;
  blocks.assign(64, 0);
  sq = 0;
  for (size_t i = 0; i < samples; ++i) {
    if (u(rng) < 1.0 / static_cast<double>(phase)) busy = !busy;
    if (u(rng) < (busy ? 0.6 : 0.2)) {
      count += 1;
      blocks[i * 64 / samples] += 1;
      sq += 1;
    }
  }
  return count;
}

TEST(DiffStats, BatchMeansHoldTheLevelUnderPhases) {
  std::mt19937_64 rng(11);
  const std::vector<double> d(64, 1.0 / 64);
  int batch_rejects = 0;
  int sampling_rejects = 0;
  const int pairs = 300;
  for (int i = 0; i < pairs; ++i) {
    std::vector<double> yb, yn;
    double sqb = 0, sqn = 0;
    phasedRun(rng, 4000, 200, yb, sqb);
    phasedRun(rng, 4000, 200, yn, sqn);
    const Comparison c = compare(batchMeans(yb, d), batchMeans(yn, d));
    if (c.p < 0.05) ++batch_rejects;
    // What treating the samples as independent (sampling variance alone) says.
    double sb = 0, sn = 0;
    for (double v : yb) sb += v;
    for (double v : yn) sn += v;
    const Comparison naive = compare({sb, sqb, kInfinity}, {sn, sqn, kInfinity});
    if (naive.p < 0.05) ++sampling_rejects;
  }
  // Same process on both sides: a 5% test should reject about 5%.
  EXPECT_LE(batch_rejects, pairs * 8 / 100) << "batch means rejected " << batch_rejects;
  EXPECT_GE(sampling_rejects, pairs * 30 / 100)
      << "the phases should defeat the variance of independent samples (" << sampling_rejects
      << ")";
}

TEST(DiffStats, DetectableIsTheCriticalValueTimesTheError) {
  EXPECT_NEAR(detectable(2.0, 10, 0.05), 2 * 2.228, 0.002);
  EXPECT_EQ(detectable(0, 10, 0.05), 0.0);
}

}  // namespace
}  // namespace strobe::model::stats
