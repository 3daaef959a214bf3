// The statistics behind strobe diff's verdicts (docs/USAGE.md, "strobe
// diff"), apart from any profile: what one side of a comparison knows of a
// quantity (a function's time in its runs), how two sides compare, and which
// of many comparisons are discoveries.
//
//   batchMeans    one run: its quantity summed per block of time. The
//                 samples of a run are not independent draws (a phase lasts
//                 seconds), so the variance comes from the spread of the
//                 blocks' sums (batch means), at block sizes doubling from
//                 the finest until kMinBlocks remain; the largest of those
//                 estimates is kept (correlation over up to 1/kMinBlocks of
//                 the run counts).
//   withVariance  adds a variance known apart (the run total's, for a time
//                 that is a share of it), Satterthwaite's degrees of freedom.
//   acrossRuns    several runs: the spread of their values (the mean's
//                 variance s^2 / R on R - 1 degrees of freedom), never below
//                 what the runs' own noise gives their mean.
//   compare       new minus base, its standard error, degrees of freedom
//                 and the two-sided p-value of Student's t. When both sides
//                 are several runs, their spreads are pooled (Student's t,
//                 R_base + R_new - 2 degrees of freedom), each side's
//                 variance still never below its runs' own noise: runs on
//                 one machine spread alike, and three runs a side then
//                 judge on 4 degrees of freedom. Welch's, which lets one
//                 side's spread alone set them (as few as 2 when the other
//                 side's runs happen to agree), left a +48% change at
//                 t = 17 "same" among 30 comparisons. Otherwise Welch's t,
//                 with Welch-Satterthwaite degrees of freedom.
//   benjaminiHochberg  the discoveries among many p-values at a false
//                 discovery rate q.
//
// A quantity may be normalized: value = sum(y) / sum(d), where d is the
// normalizer per block (the run's total for shares, the spans that ended in
// the block for "per span", a constant for absolute time); its variance is
// the ratio estimator's, from the residuals y - value * d.
//
// Thread safety: pure functions. No I/O.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace strobe::model::stats {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The fewest blocks a batch-means estimate rests on (7 degrees of freedom).
inline constexpr size_t kMinBlocks = 8;

// Two-sided p-value of |t| under Student's t with `df` degrees of freedom
// (fractional allowed, as Welch's; infinite: the normal distribution).
double studentTwoSidedP(double t, double df);
// The t >= 0 whose two-sided p-value is `p` (0 < p <= 1).
double studentCritical(double p, double df);

// What one side knows of a quantity: its value (mean over runs), the
// variance of that value and the degrees of freedom of that variance
// (infinite when it is taken as known).
struct Estimate {
  double value = 0;
  double variance = 0;
  double df = kInfinity;
  // Several runs (acrossRuns): how many, the sum of the squared deviations
  // of their values from the mean, and the variance the mean has from the
  // runs' own noise, on within_df.
  double runs = 1;
  double squares = 0;
  double within = 0;
  double within_df = kInfinity;
};

// One run. y[b], d[b]: the quantity and the normalizer in block b (the
// same number of blocks, ideally a power of two, at least kMinBlocks).
Estimate batchMeans(std::span<const double> y, std::span<const double> d);

// `e` with `variance` (on `df` degrees of freedom) added.
Estimate withVariance(const Estimate& e, double variance, double df);

// Several runs' values; `within`: the variance their mean has from the
// runs' own noise (the sum of their variances / R^2), on `within_df`.
Estimate acrossRuns(std::span<const double> values, double within, double within_df);

struct Comparison {
  double change = 0;  // next.value - base.value
  double se = 0;      // its standard error
  double df = kInfinity;
  double p = 1;  // two-sided; 1 when there is no change, 0 when a change has no noise at all
};
Comparison compare(const Estimate& base, const Estimate& next);

// Which of `p` are discoveries at false discovery rate q (Benjamini and
// Hochberg's step-up procedure: the largest k with p_(k) <= k q / m, and
// every p at or below p_(k)).
std::vector<bool> benjaminiHochberg(std::span<const double> p, double q);

// The smallest |change| a comparison with standard error `se` on `df`
// degrees of freedom would call a discovery at two-sided level `alpha`.
double detectable(double se, double df, double alpha);

}  // namespace strobe::model::stats
