// strobe diff: what changed between two sets of runs, with a verdict per
// function (or line, file, module, thread, process) that tells noise from
// change. Rows are matched across recordings by model/diff_key.hpp, never by
// display text; the statistics are model/diff_stats.hpp's.
//
// What is compared (Normalize): each run's time as it is (kNone: two runs of
// the same work), its share of the run's total (kTotal; shown as times of the
// base scaled to the new total), or its time per span of one name (kSpan:
// only samples taken inside such spans count, divided by the run's number of
// those spans). With several runs a side's value is the mean per run.
//
// How noise is estimated: a side of one run from the spread of its blocks of
// time (batch means, the samples of a run being correlated over seconds; of
// a function's share of each block's CPU, which the machine's load does not
// move, times the run's total); a side of several runs from the spread
// across its runs; never below the variance of sampling alone. One run
// cannot show how its total would vary from run to run: with one run a side
// the total's change is judged against sampling noise only. New minus base is judged by Student's
// t (model/diff_stats.hpp, compare: both sides' spreads pooled when both are several runs, else
// Welch's); the false discovery rate over all the comparisons made is held at `fdr`
// (Benjamini-Hochberg). A change is slower or faster only when it is a discovery and at least
// min_change_pct percent of the base's total; a quantity whose base and new together stay below
// that could never be, and is not tested (this keeps the number of comparisons, and so the bar,
// down).
//
// A row compares self time and total time; its verdict is theirs when they
// agree or one is `same`, else the total's.
//
// Thread safety: pure over const Profiles (which must outlive the result:
// DiffRun spans point into them). No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "model/aggregate.hpp"
#include "model/diff_stats.hpp"
#include "model/filter.hpp"
#include "model/measure.hpp"
#include "model/profile.hpp"

namespace strobe::model {

enum class Verdict : uint8_t { kSame, kSlower, kFaster };
// "same", "slower", "faster".
std::string_view verdictName(Verdict v);

enum class Normalize : uint8_t { kNone, kTotal, kSpan };

inline constexpr double kDefaultMinChangePct = 1.0;  // of the base's total
// 1%: a comparison of two runs of the same program calls something slower
// or faster about once in a hundred (a CI gate that cries wolf is ignored);
// changes worth finding are far beyond the noise anyway.
inline constexpr double kDefaultFdr = 0.01;
inline constexpr size_t kDiffBlocks = 64;  // finest blocks of time per run

struct DiffOptions {
  GroupBy by = GroupBy::kFunction;  // not kAddress
  bool fold_inline = false;
  Normalize normalize = Normalize::kNone;
  std::string span;  // kSpan: the spans' name
  double min_change_pct = kDefaultMinChangePct;
  double fdr = kDefaultFdr;
  size_t blocks = kDiffBlocks;
};

// One run: its recording and the samples it compares (the view and
// `filter` already applied: its window and threads also say which spans
// count for kSpan), named for reports.
struct DiffRun {
  const Profile* profile = nullptr;
  std::span<const Sample> samples;
  std::string name;
  SampleFilter filter;
};

// One quantity compared: each side's value (mean per run, in the unit the
// diff shows: ns, ns per span, or for kTotal the base scaled to the new
// total), each run's own, and the judgement.
struct DiffMeasure {
  double base = 0;
  double next = 0;
  std::vector<double> base_runs;
  std::vector<double> next_runs;
  double change = 0;  // next - base
  double se = 0;      // the change's standard error (0 when not tested)
  double df = stats::kInfinity;
  double p = 1;
  // The smallest |change| this comparison could have called (the noise's
  // bar at the strictest step of Benjamini-Hochberg, and min-change).
  double detectable = 0;
  bool tested = false;
  bool discovery = false;  // beyond the noise at the false discovery rate
  Verdict verdict = Verdict::kSame;
  // 100 * change / base; +-infinity when the base is 0 and the new is not.
  double changePct() const;
};

struct DiffRow {
  std::string key;          // diff_key.hpp
  std::string name;         // as report names it (threads: role or name, no tid)
  std::string system_name;  // kFunction, kLine: the symbol without clone suffix
  std::string file;
  uint32_t line = 0;
  std::string module;
  DiffMeasure self;
  DiffMeasure total;
  uint64_t base_samples = 0;  // samples with it on the stack, all base runs
  uint64_t next_samples = 0;
  Verdict verdict = Verdict::kSame;
};

// How one side's noise was estimated.
enum class NoiseMethod : uint8_t { kBatchMeans, kAcrossRuns };

struct DiffSide {
  std::vector<std::string> names;
  std::vector<uint64_t> samples;  // per run, compared
  std::vector<uint64_t> weight;   // per run, ns (or counts)
  std::vector<uint64_t> spans;    // kSpan: per run, the spans counted
  std::vector<uint64_t> duration_ns;
  NoiseMethod method = NoiseMethod::kBatchMeans;
};

struct ProfileDiff {
  DiffOptions options;
  Measure measure;  // what the samples measure (the view)
  DiffSide base;
  DiffSide next;
  DiffMeasure total;          // all the samples compared
  std::vector<DiffRow> rows;  // by |self change|, then |total change|, then name
  double min_change = 0;      // in the diff's unit: min_change_pct of the base's total
  double scale = 1;           // kTotal: the new side's mean total (shares -> ns)
  size_t tests = 0;           // comparisons made (the false discovery rate's family)
  double alpha = 0;           // the strictest level a discovery needed: fdr / tests
};

// Compares `base` and `next` (each at least one run with samples). Errors
// (kUsage): no samples in a run, --by address, kSpan without spans of that
// name in a run, runs of different views.
Result<ProfileDiff> diffProfiles(std::span<const DiffRun> base, std::span<const DiffRun> next,
                                 const DiffOptions& opt);

// "none", "total", "span:NAME".
std::string normalizeName(const DiffOptions& opt);
// How a side's noise was estimated, for headers: "batch means over time
// blocks within the run" or "the spread across 3 runs".
std::string noiseMethodText(const DiffSide& side);

}  // namespace strobe::model
