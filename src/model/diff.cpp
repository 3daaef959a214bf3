#include "model/diff.hpp"

#include <algorithm>
#include <cmath>
#include <thread>
#include <unordered_map>

#include "model/diff_key.hpp"
#include "model/diff_runs.hpp"

namespace strobe::model {
namespace {

// f(0) ... f(n - 1), each on a thread of its own (at most as many at once
// as the machine has CPUs).
template <typename F>
void inParallel(size_t n, F&& f) {
  const size_t most = std::max<size_t>(1, std::thread::hardware_concurrency());
  for (size_t from = 0; from < n; from += most) {
    std::vector<std::thread> threads;
    for (size_t i = from + 1; i < std::min(n, from + most); ++i) threads.emplace_back(f, i);
    f(from);
    for (std::thread& t : threads) t.join();
  }
}

// One key's sums in every run (base runs first, then new runs).
struct KeySums {
  DiffRow row;
  std::vector<double> self;
  std::vector<double> total;
  int32_t slot = -1;  // its place among the tested keys' blocks
};

// What one run's samples credit: per stack (StackRows) or per thread.
struct RunIndex {
  StackRows rows;
  std::vector<uint32_t> row_key;                  // per row of `rows`: the key
  std::unordered_map<int32_t, uint32_t> tid_key;  // kThread, kProcess: tid -> key
  std::vector<int32_t> list_of_stack;             // stack -> rows.index's list, -1 none
};

class Differ {
 public:
  Differ(std::span<const DiffRun> base, std::span<const DiffRun> next, const DiffOptions& opt)
      : opt_(opt),
        base_count_(base.size()),
        per_thread_(opt.by == GroupBy::kThread || opt.by == GroupBy::kProcess) {
    inputs_.insert(inputs_.end(), base.begin(), base.end());
    inputs_.insert(inputs_.end(), next.begin(), next.end());
  }

  Result<ProfileDiff> run() {
    ProfileDiff d;
    d.options = opt_;
    if (opt_.by == GroupBy::kAddress) {
      return makeError("strobe diff has no --by address",
                       "addresses differ between builds; use --by function, line, file, module, "
                       "thread or process",
                       ErrorKind::kUsage);
    }
    if (base_count_ == 0 || inputs_.size() == base_count_) {
      return makeError("strobe diff needs a base and a new run", "strobe diff BASE NEW",
                       ErrorKind::kUsage);
    }
    for (size_t r = 0; r < inputs_.size(); ++r) {
      const DiffRun& in = inputs_[r];
      const View v = in.filter.view != View::kAuto ? in.filter.view : viewOf(*in.profile);
      const Measure m = measureOf(v, in.profile->meta().event);
      if (r == 0) {
        d.measure = m;
      } else if (m.type != d.measure.type || m.unit != d.measure.unit) {
        return makeError(inputs_[0].name + " measures " + d.measure.type + " but " + in.name +
                             " measures " + m.type,
                         "compare recordings of the same event, or pick one view with --view",
                         ErrorKind::kUsage);
      }
      auto prepared = prepareRun(in, opt_);
      if (!prepared) return prepared.error();
      runs_.push_back(std::move(*prepared));
    }
    const std::span<const PreparedRun> all(runs_);
    base_ = all.subspan(0, base_count_);
    next_ = all.subspan(base_count_);
    fillSide(d.base, 0, base_count_);
    fillSide(d.next, base_count_, runs_.size());

    // What each run's stacks credit, one thread a run (the runs' samples
    // are apart), then matched across runs here.
    index_.resize(runs_.size());
    if (!per_thread_) {
      inParallel(runs_.size(), [&](size_t r) {
        index_[r].rows = stackRows(*runs_[r].profile, runs_[r].samples, opt_.by, opt_.fold_inline);
      });
    }
    for (size_t r = 0; r < runs_.size(); ++r) indexRun(r);
    scale_ = 1;
    if (opt_.normalize == Normalize::kTotal) {
      double sum = 0;
      for (const PreparedRun& r : next_) sum += static_cast<double>(r.weight);
      scale_ = sum / static_cast<double>(next_.size());
    }
    d.scale = scale_;

    // The total, and which keys could change by min-change (those are tested).
    std::vector<double> all_base(base_count_);
    std::vector<double> all_next(runs_.size() - base_count_);
    for (size_t r = 0; r < runs_.size(); ++r) {
      (r < base_count_ ? all_base[r] : all_next[r - base_count_]) =
          static_cast<double>(runs_[r].weight);
    }
    fillValues(d.total, all_base, all_next);
    d.min_change = opt_.min_change_pct / 100.0 * d.total.base;
    size_t slots = 0;
    for (KeySums& k : keys_) {
      fillValues(k.row.self, std::span(k.self).first(base_count_),
                 std::span(k.self).subspan(base_count_));
      fillValues(k.row.total, std::span(k.total).first(base_count_),
                 std::span(k.total).subspan(base_count_));
      if (reachable(k.row.self, d.min_change) || reachable(k.row.total, d.min_change)) {
        k.slot = static_cast<int32_t>(slots++);
      }
    }
    accumulateBlocks(slots);

    // Estimates and tests: the total, then each key's self and total.
    std::vector<DiffMeasure*> tested;
    judgeMeasure(d.total, all_blocks_, 0);
    tested.push_back(&d.total);
    for (size_t i = 0; i < keys_.size(); ++i) {
      KeySums& k = keys_[i];
      if (k.slot < 0) continue;
      const auto slot = static_cast<size_t>(k.slot);
      if (reachable(k.row.self, d.min_change)) {
        judgeMeasure(k.row.self, self_blocks_, slot);
        tested.push_back(&k.row.self);
      }
      if (reachable(k.row.total, d.min_change)) {
        judgeMeasure(k.row.total, total_blocks_, slot);
        tested.push_back(&k.row.total);
      }
    }
    std::vector<double> p(tested.size());
    for (size_t i = 0; i < tested.size(); ++i) p[i] = tested[i]->p;
    const std::vector<bool> found = stats::benjaminiHochberg(p, opt_.fdr);
    d.tests = tested.size();
    d.alpha = opt_.fdr / static_cast<double>(tested.size());
    for (size_t i = 0; i < tested.size(); ++i) {
      DiffMeasure& m = *tested[i];
      m.discovery = found[i];
      m.detectable = std::max(d.min_change, stats::detectable(m.se, m.df, d.alpha));
      m.verdict = measureVerdict(m, d.min_change);
    }
    d.rows.reserve(keys_.size());
    for (KeySums& k : keys_) {
      for (DiffMeasure* m : {&k.row.self, &k.row.total}) {
        if (!m->tested) m->detectable = d.min_change;
      }
      const Verdict s = k.row.self.verdict;
      const Verdict t = k.row.total.verdict;
      k.row.verdict = s == t || s == Verdict::kSame ? t : t == Verdict::kSame ? s : t;
      d.rows.push_back(std::move(k.row));
    }
    std::sort(d.rows.begin(), d.rows.end(), [](const DiffRow& a, const DiffRow& b) {
      const double sa = std::fabs(a.self.change);
      const double sb = std::fabs(b.self.change);
      if (sa != sb) return sa > sb;
      const double ta = std::fabs(a.total.change);
      const double tb = std::fabs(b.total.change);
      if (ta != tb) return ta > tb;
      if (a.name != b.name) return a.name < b.name;
      return a.key < b.key;
    });
    return d;
  }

 private:
  void fillSide(DiffSide& side, size_t from, size_t to) {
    for (size_t r = from; r < to; ++r) {
      side.names.push_back(inputs_[r].name);
      side.samples.push_back(runs_[r].samples.size());
      side.weight.push_back(runs_[r].weight);
      side.spans.push_back(runs_[r].spans);
      side.duration_ns.push_back(runs_[r].duration_ns);
    }
    side.method = to - from > 1 ? NoiseMethod::kAcrossRuns : NoiseMethod::kBatchMeans;
  }

  uint32_t keyId(std::string key, const auto& name) {
    auto [it, inserted] = key_ids_.try_emplace(std::move(key), keys_.size());
    if (inserted) {
      KeySums k;
      k.row.key = it->first;
      name(k.row);
      k.self.assign(runs_.size(), 0.0);
      k.total.assign(runs_.size(), 0.0);
      keys_.push_back(std::move(k));
    }
    return it->second;
  }

  void indexRun(size_t r) {
    const Profile& p = *runs_[r].profile;
    RunIndex& ix = index_[r];
    const std::span<const Sample> samples = runs_[r].samples;
    const bool is_base = r < base_count_;
    if (per_thread_) {
      for (const Sample& s : samples) {
        auto [it, inserted] = ix.tid_key.try_emplace(s.tid, 0);
        if (inserted) {
          std::string key = diffThreadKey(p, opt_.by, s.tid);
          it->second = keyId(key, [&](DiffRow& row) { row.name = key; });
        }
        KeySums& k = keys_[it->second];
        k.self[r] += static_cast<double>(s.weight);
        k.total[r] += static_cast<double>(s.weight);
        (is_base ? k.row.base_samples : k.row.next_samples) += 1;
      }
      return;
    }
    ix.row_key.resize(ix.rows.rows.size());
    for (size_t i = 0; i < ix.rows.rows.size(); ++i) {
      const TopRow& t = ix.rows.rows[i];
      ix.row_key[i] = keyId(diffKey(p, opt_.by, ix.rows.frames[i]), [&](DiffRow& row) {
        row.name = t.function;
        row.system_name = t.system_name;
        row.file = t.file;
        row.line = t.line;
        row.module = t.module;
      });
      KeySums& k = keys_[ix.row_key[i]];
      k.self[r] += static_cast<double>(t.self);
      k.total[r] += static_cast<double>(t.total);
      (is_base ? k.row.base_samples : k.row.next_samples) += t.total_samples;
    }
    ix.list_of_stack.assign(p.stacks().size(), -1);
    for (const auto& [stack, list] : ix.rows.index) {
      if (stack < ix.list_of_stack.size()) ix.list_of_stack[stack] = static_cast<int32_t>(list);
    }
  }

  void fillValues(DiffMeasure& m, std::span<const double> base, std::span<const double> next) {
    m.base_runs.resize(base.size());
    m.next_runs.resize(next.size());
    m.base = m.next = 0;
    for (size_t r = 0; r < base.size(); ++r) {
      m.base_runs[r] = runValue(base_[r], base[r], scale_);
      m.base += m.base_runs[r] / static_cast<double>(base.size());
    }
    for (size_t r = 0; r < next.size(); ++r) {
      m.next_runs[r] = runValue(next_[r], next[r], scale_);
      m.next += m.next_runs[r] / static_cast<double>(next.size());
    }
    m.change = m.next - m.base;
  }

  static bool reachable(const DiffMeasure& m, double min_change) {
    return m.base + m.next > 0 && m.base + m.next >= min_change;
  }

  // Per run and block: each tested key's self and total weight, and all.
  void accumulateBlocks(size_t slots) {
    const size_t k = runs_[0].norm.size();
    const size_t n = runs_.size();
    self_blocks_.assign(n, std::vector<double>(slots * k, 0.0));
    total_blocks_.assign(n, std::vector<double>(slots * k, 0.0));
    all_blocks_.assign(n, std::vector<double>(k, 0.0));
    constexpr uint32_t kSelf = 1U << 31;
    inParallel(n, [&](size_t r) {
      std::vector<uint32_t> keys;
      const PreparedRun& run = runs_[r];
      const RunIndex& ix = index_[r];
      // Per stack list: the tested keys it credits, each once (slot, and
      // kSelf on its leaf's), so that a sample costs only those.
      std::vector<uint32_t> start(ix.rows.start.empty() ? 1 : ix.rows.start.size(), 0);
      std::vector<uint32_t> credit;
      for (size_t list = 0; list + 1 < ix.rows.start.size(); ++list) {
        keys.clear();
        for (uint32_t at = ix.rows.start[list]; at < ix.rows.start[list + 1]; ++at) {
          const uint32_t key = ix.row_key[ix.rows.row_ids[at]];
          if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
          const bool self = keys.empty();
          keys.push_back(key);
          if (keys_[key].slot >= 0) {
            credit.push_back(static_cast<uint32_t>(keys_[key].slot) | (self ? kSelf : 0));
          }
        }
        start[list + 1] = static_cast<uint32_t>(credit.size());
      }
      for (size_t i = 0; i < run.samples.size(); ++i) {
        const Sample& s = run.samples[i];
        const size_t b = run.block[i];
        const auto w = static_cast<double>(s.weight);
        all_blocks_[r][b] += w;
        if (per_thread_) {
          const int32_t slot = keys_[ix.tid_key.at(s.tid)].slot;
          if (slot < 0) continue;
          self_blocks_[r][static_cast<size_t>(slot) * k + b] += w;
          total_blocks_[r][static_cast<size_t>(slot) * k + b] += w;
          continue;
        }
        if (s.stack == kNone || s.stack >= ix.list_of_stack.size() ||
            ix.list_of_stack[s.stack] < 0) {
          continue;
        }
        const auto list = static_cast<size_t>(ix.list_of_stack[s.stack]);
        for (uint32_t at = start[list]; at < start[list + 1]; ++at) {
          const size_t cell = static_cast<size_t>(credit[at] & ~kSelf) * k + b;
          total_blocks_[r][cell] += w;
          if ((credit[at] & kSelf) != 0) self_blocks_[r][cell] += w;
        }
      }
    });
  }

  // Tests measure `m` from the blocks of slot `slot` (in `blocks`, per run).
  void judgeMeasure(DiffMeasure& m, const std::vector<std::vector<double>>& blocks, size_t slot) {
    const size_t k = runs_[0].norm.size();
    auto estimate = [&](size_t from, size_t count) {
      std::vector<std::span<const double>> b(count);
      for (size_t r = 0; r < count; ++r) {
        b[r] = std::span<const double>(blocks[from + r]).subspan(slot * k, k);
      }
      return sideEstimate(std::span(runs_).subspan(from, count), b, scale_);
    };
    judge(m, estimate(0, base_count_), estimate(base_count_, runs_.size() - base_count_));
  }

  const DiffOptions& opt_;
  size_t base_count_;
  bool per_thread_;
  std::vector<DiffRun> inputs_;
  std::vector<PreparedRun> runs_;
  std::span<const PreparedRun> base_;
  std::span<const PreparedRun> next_;
  std::vector<RunIndex> index_;
  std::unordered_map<std::string, uint32_t> key_ids_;
  std::vector<KeySums> keys_;
  double scale_ = 1;
  std::vector<std::vector<double>> self_blocks_;
  std::vector<std::vector<double>> total_blocks_;
  std::vector<std::vector<double>> all_blocks_;
};

}  // namespace

std::string_view verdictName(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return "slower";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSame:
      break;
  }
  return "same";
}

double DiffMeasure::changePct() const {
  if (base == 0) return next == 0 ? 0.0 : (next > 0 ? stats::kInfinity : -stats::kInfinity);
  return 100.0 * change / base;
}

Result<ProfileDiff> diffProfiles(std::span<const DiffRun> base, std::span<const DiffRun> next,
                                 const DiffOptions& opt) {
  return Differ(base, next, opt).run();
}

std::string normalizeName(const DiffOptions& opt) {
  switch (opt.normalize) {
    case Normalize::kTotal:
      return "total";
    case Normalize::kSpan:
      return "span:" + opt.span;
    case Normalize::kNone:
      break;
  }
  return "none";
}

std::string noiseMethodText(const DiffSide& side) {
  if (side.method == NoiseMethod::kAcrossRuns) {
    return "the spread across its " + std::to_string(side.names.size()) + " runs";
  }
  return "batch means over blocks of time within the run";
}

}  // namespace strobe::model
