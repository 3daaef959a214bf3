// The runs of a comparison made ready for it (model/diff.hpp, diff_tree.hpp):
// the samples each compares (for --normalize span only those inside the
// spans), each sample's block of time, the normalizer per block and in all,
// and a side's estimate of a quantity from its runs' per-block sums.
//
// A run's value of a quantity is sum / norm_total * run_scale. Absolute
// time is a share of the run's total (the normalizer: the CPU sampled in
// each block) times that total: the blocks are of wall time, and how much
// CPU a block got depends on what else the machine ran, so a function's
// time per block would vary with the machine's load; its share of each
// block's CPU does not. Shares have run_scale 1 (the side's scale makes
// them times); per span: the spans that ended in each block, run_scale 1.
// Internal to the model's diff. Thread safety: plain values. No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/diff.hpp"
#include "model/diff_stats.hpp"
#include "model/filter.hpp"
#include "model/profile.hpp"

namespace strobe::model {

struct PreparedRun {
  const Profile* profile = nullptr;
  std::vector<Sample> own;  // the samples, when they had to be narrowed
  std::span<const Sample> samples;
  std::vector<uint16_t> block;  // per sample
  std::vector<double> norm;     // per block: the normalizer
  double norm_total = 0;        // their sum
  double run_scale = 1;         // kNone: the run's total
  // kNone: the run total's own variance (sampling's: the sum of the
  // squared weights), which a share times the total inherits; else 0.
  double norm_variance = 0;
  uint64_t weight = 0;  // of the samples compared
  uint64_t spans = 0;   // kSpan: spans counted
  uint64_t duration_ns = 0;
};

// Errors (kUsage) name the run: no samples, no spans of the name.
Result<PreparedRun> prepareRun(const DiffRun& run, const DiffOptions& opt);

// A quantity's per-block sums in each run of a side (blocks[r]: opt.blocks
// values); `scale` turns normalized values into the diff's unit.
stats::Estimate sideEstimate(std::span<const PreparedRun> runs,
                             std::span<const std::span<const double>> blocks, double scale);

// The per-run value of a quantity of total weight `sum` (normalized, scaled).
inline double runValue(const PreparedRun& run, double sum, double scale) {
  return run.norm_total > 0 ? sum / run.norm_total * run.run_scale * scale : 0;
}

// Verdict of one measure: slower or faster when a discovery at least
// `min_change` in size.
Verdict measureVerdict(const DiffMeasure& m, double min_change);

// Fills in m.change, se, df, p, detectable from both sides' estimates.
void judge(DiffMeasure& m, const stats::Estimate& base, const stats::Estimate& next);

}  // namespace strobe::model
