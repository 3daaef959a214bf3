#include "model/diff_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace strobe::model::stats {
namespace {

// Beyond this many degrees of freedom Student's t is the normal distribution
// to far better than the estimates it is used with.
constexpr double kNormalDf = 1e7;

// The continued fraction of the regularized incomplete beta function
// I_x(a, b) (valid, and quick to converge, for x < (a + 1) / (a + b + 2)),
// evaluated with the modified Lentz method.
double betaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10'000; ++m) {
    const double m2 = 2.0 * m;
    // The even step: m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    // The odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double incompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * betaFraction(a, b, x) / a;
  return 1.0 - front * betaFraction(b, a, 1.0 - x) / b;
}

// The degrees of freedom of a sum of variances a + b (Welch-Satterthwaite).
double satterthwaite(double a, double a_df, double b, double b_df) {
  double denom = 0;
  if (std::isfinite(a_df) && a_df > 0) denom += a * a / a_df;
  if (std::isfinite(b_df) && b_df > 0) denom += b * b / b_df;
  return denom > 0 ? (a + b) * (a + b) / denom : kInfinity;
}

double sumOfSquaredResiduals(std::span<const double> y, std::span<const double> d, double value) {
  double s = 0;
  for (size_t b = 0; b < y.size(); ++b) {
    const double e = y[b] - value * d[b];
    s += e * e;
  }
  return s;
}

}  // namespace

double studentTwoSidedP(double t, double df) {
  if (std::isnan(t)) return 1;
  t = std::fabs(t);
  if (std::isinf(t)) return 0;
  if (!(df > 0)) return 1;
  if (df >= kNormalDf) return std::erfc(t / std::sqrt(2.0));
  return incompleteBeta(df / 2.0, 0.5, df / (df + t * t));
}

double studentCritical(double p, double df) {
  if (!(p < 1)) return 0;
  if (!(p > 0)) return kInfinity;
  double lo = 0;
  double hi = 1;
  while (studentTwoSidedP(hi, df) > p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e12) return kInfinity;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (studentTwoSidedP(mid, df) > p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Estimate batchMeans(std::span<const double> y, std::span<const double> d) {
  Estimate e;
  const double total = std::accumulate(y.begin(), y.end(), 0.0);
  const double norm = std::accumulate(d.begin(), d.end(), 0.0);
  if (!(norm > 0) || y.size() != d.size()) return e;
  e.value = total / norm;
  std::vector<double> ys(y.begin(), y.end());
  std::vector<double> ds(d.begin(), d.end());
  double best = 0;
  double best_df = kInfinity;
  while (ys.size() >= kMinBlocks) {
    const auto k = static_cast<double>(ys.size());
    const double var = k / (k - 1.0) * sumOfSquaredResiduals(ys, ds, e.value) / (norm * norm);
    if (var > best) {
      best = var;
      best_df = k - 1.0;
    }
    // Twice as long blocks: neighbours merged (an odd last one joins the one before).
    const size_t half = ys.size() / 2;
    for (size_t b = 0; b < half; ++b) {
      ys[b] = ys[2 * b] + ys[2 * b + 1];
      ds[b] = ds[2 * b] + ds[2 * b + 1];
    }
    if (ys.size() % 2 == 1) {
      ys[half - 1] += ys.back();
      ds[half - 1] += ds.back();
    }
    ys.resize(half);
    ds.resize(half);
  }
  e.variance = best;
  e.df = best_df;
  return e;
}

Estimate withVariance(const Estimate& e, double variance, double df) {
  Estimate out = e;
  out.variance = e.variance + variance;
  out.df = satterthwaite(e.variance, e.df, variance, df);
  return out;
}

Estimate acrossRuns(std::span<const double> values, double within, double within_df) {
  Estimate e;
  if (values.empty()) return e;
  const auto r = static_cast<double>(values.size());
  e.value = std::accumulate(values.begin(), values.end(), 0.0) / r;
  e.runs = r;
  e.within = within;
  e.within_df = within_df;
  double spread = 0;
  if (values.size() > 1) {
    for (double v : values) e.squares += (v - e.value) * (v - e.value);
    spread = e.squares / (r - 1.0) / r;
  }
  if (values.size() > 1 && spread > within) {
    e.variance = spread;
    e.df = r - 1.0;
  } else {
    e.variance = within;
    e.df = within_df;
  }
  return e;
}

Comparison compare(const Estimate& base, const Estimate& next) {
  Comparison c;
  c.change = next.value - base.value;
  double var = 0;
  if (base.runs >= 2 && next.runs >= 2) {
    const double df = base.runs + next.runs - 2.0;
    const double pooled = (base.squares + next.squares) / df;
    const double b = pooled / base.runs;
    const double n = pooled / next.runs;
    const bool b_pooled = b >= base.within;
    const bool n_pooled = n >= next.within;
    var = (b_pooled ? b : base.within) + (n_pooled ? n : next.within);
    if (b_pooled && n_pooled) {
      c.df = df;  // one estimate, scaled for each side
    } else {
      c.df = satterthwaite(b_pooled ? b : base.within, b_pooled ? df : base.within_df,
                           n_pooled ? n : next.within, n_pooled ? df : next.within_df);
    }
  } else {
    var = base.variance + next.variance;
    c.df = satterthwaite(base.variance, base.df, next.variance, next.df);
  }
  c.se = std::sqrt(var);
  if (c.change == 0) {
    c.p = 1;
  } else if (!(c.se > 0)) {
    c.p = 0;
  } else {
    c.p = studentTwoSidedP(c.change / c.se, c.df);
  }
  return c;
}

std::vector<bool> benjaminiHochberg(std::span<const double> p, double q) {
  const size_t m = p.size();
  std::vector<bool> out(m, false);
  if (m == 0) return out;
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  size_t last = 0;  // how many are discoveries
  for (size_t k = m; k > 0; --k) {
    if (p[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) {
      last = k;
      break;
    }
  }
  for (size_t k = 0; k < last; ++k) out[order[k]] = true;
  return out;
}

double detectable(double se, double df, double alpha) {
  if (!(se > 0)) return 0;
  return studentCritical(alpha, df) * se;
}

}  // namespace strobe::model::stats
