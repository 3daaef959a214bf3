#include "model/diff_tree.hpp"

#include <algorithm>
#include <unordered_map>

#include "model/diff_key.hpp"
#include "model/diff_runs.hpp"
#include "model/frames.hpp"
#include "model/symbol_names.hpp"

namespace strobe::model {
namespace {

// Places every run's samples in the merged tree.
class Builder {
 public:
  Builder(DiffTree& t, bool fold_inline) : t_(t), fold_inline_(fold_inline) {
    t_.nodes.emplace_back();
  }

  // Each sample's leaf node.
  std::vector<uint32_t> place(const PreparedRun& run) {
    const Profile& p = *run.profile;
    by_function_.assign(2 * p.functions().size(), kNone);
    by_location_.assign(p.locations().size(), kNone);
    memo_.assign(p.stacks().size(), Memo{});
    std::vector<uint32_t> leaf(run.samples.size());
    for (size_t i = 0; i < run.samples.size(); ++i) leaf[i] = nodeFor(p, run.samples[i].stack);
    return leaf;
  }

 private:
  struct Memo {
    uint32_t node = kNone;
    Frame frame;  // the innermost frame of the path to it (clone callers: frames.hpp)
  };

  uint32_t nodeFor(const Profile& p, StackId leaf) {
    if (leaf == kNone || leaf >= memo_.size()) return 0;
    if (memo_[leaf].node != kNone) return memo_[leaf].node;
    path_.clear();
    StackId s = leaf;
    while (s != kNone && memo_[s].node == kNone) {
      path_.push_back(s);
      s = p.stacks()[s].parent;
    }
    uint32_t node = s == kNone ? 0 : memo_[s].node;
    Frame caller = s == kNone ? Frame{} : memo_[s].frame;
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      frames_.clear();
      forEachLocationFrame(p, p.stacks()[*it].location, fold_inline_,
                           [&](const Frame& f) { frames_.push_back(f); });
      for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) {
        if (isCloneCaller(p, *f, caller)) continue;
        node = child(node, frameId(p, *f));
        caller = *f;
      }
      memo_[*it] = Memo{node, caller};
    }
    return node;
  }

  // This run's frame (its function's identity, inlined or not; or its
  // unresolved location) as a frame of the tree, memoized.
  uint32_t frameId(const Profile& p, const Frame& f) {
    uint32_t* known = nullptr;
    if (f.line != nullptr && f.line->function < p.functions().size()) {
      known = &by_function_[2 * static_cast<size_t>(p.identity(f.line->function)) +
                            (f.inlined ? 1 : 0)];
    } else {
      known = &by_location_[f.location];
    }
    if (*known != kNone) return *known;
    std::string key = diffKey(p, GroupBy::kFunction, f);
    auto [fid, new_function] = function_ids_.try_emplace(key, function_ids_.size());
    if (new_function) t_.function_keys.push_back(key);
    const uint32_t function = fid->second;
    if (f.inlined) key += "\x01inlined";
    auto [g, added] = global_ids_.try_emplace(std::move(key), t_.frames.size());
    if (added) {
      DiffFrame d;
      d.function = function;
      d.name = frameName(p, f);
      const Location& loc = p.locations()[f.location];
      d.module = std::string(p.moduleName(loc.module));
      d.inlined = f.inlined;
      d.unresolved = f.line == nullptr;
      if (f.line != nullptr && f.line->function < p.functions().size()) {
        const Function& fn = p.functions()[p.identity(f.line->function)];
        d.system_name = std::string(cloneBase(p.str(fn.system_name)));
        d.file = p.str(fn.file);
        d.line = fn.start_line;
      }
      t_.frames.push_back(std::move(d));
    }
    *known = g->second;
    return g->second;
  }

  // Children are found through an open-addressing table of (parent,
  // frame) keys, probed linearly, at most half full.
  uint32_t child(uint32_t parent, uint32_t frame) {
    const uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame;
    if (2 * (t_.nodes.size() + 1) > keys_.size()) grow();
    const size_t mask = keys_.size() - 1;
    for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
      if (ids_[i] == kNone) {
        const auto id = static_cast<uint32_t>(t_.nodes.size());
        keys_[i] = key;
        ids_[i] = id;
        DiffNode n;
        n.parent = parent;
        n.frame = frame;
        n.depth = t_.nodes[parent].depth + 1;
        t_.nodes.push_back(std::move(n));
        return id;
      }
      if (keys_[i] == key) return ids_[i];
    }
  }

  static size_t slotOf(uint64_t key, size_t mask) {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
  }

  void grow() {
    std::vector<uint64_t> old_keys(std::max<size_t>(1024, keys_.size() * 2), 0);
    std::vector<uint32_t> old_ids(old_keys.size(), kNone);
    old_keys.swap(keys_);
    old_ids.swap(ids_);
    const size_t mask = keys_.size() - 1;
    for (size_t j = 0; j < old_ids.size(); ++j) {
      if (old_ids[j] == kNone) continue;
      size_t i = slotOf(old_keys[j], mask);
      while (ids_[i] != kNone) i = (i + 1) & mask;
      keys_[i] = old_keys[j];
      ids_[i] = old_ids[j];
    }
  }

  DiffTree& t_;
  bool fold_inline_;
  // This run's frames: by function identity (twice: called, inlined) and
  // by location (unresolved); kNone until seen.
  std::vector<uint32_t> by_function_;
  std::vector<uint32_t> by_location_;
  std::unordered_map<std::string, uint32_t> global_ids_;
  std::unordered_map<std::string, uint32_t> function_ids_;
  std::vector<uint64_t> keys_;  // child table: (parent << 32 | frame)
  std::vector<uint32_t> ids_;   // child table: the node, kNone when empty
  std::vector<Memo> memo_;
  std::vector<StackId> path_;
  std::vector<Frame> frames_;
};

}  // namespace

Result<DiffTree> diffTree(std::span<const DiffRun> base, std::span<const DiffRun> next,
                          const DiffOptions& opt, const ProfileDiff& diff) {
  std::vector<PreparedRun> runs;
  for (std::span<const DiffRun> side : {base, next}) {
    for (const DiffRun& in : side) {
      auto r = prepareRun(in, opt);
      if (!r) return r.error();
      runs.push_back(std::move(*r));
    }
  }
  const size_t nb = base.size();
  const size_t n = runs.size();
  DiffTree t;
  Builder builder(t, opt.fold_inline);
  std::vector<std::vector<uint32_t>> leaf(n);
  for (size_t r = 0; r < n; ++r) leaf[r] = builder.place(runs[r]);

  const size_t count = t.nodes.size();
  std::vector<std::vector<double>> self(n, std::vector<double>(count, 0.0));
  std::vector<std::vector<double>> total(n);
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < runs[r].samples.size(); ++i) {
      self[r][leaf[r][i]] += static_cast<double>(runs[r].samples[i].weight);
    }
    total[r] = self[r];
    for (size_t x = count; x-- > 1;) total[r][t.nodes[x].parent] += total[r][x];
  }
  auto mean = [&](const std::vector<std::vector<double>>& v, size_t from, size_t to, size_t x) {
    double sum = 0;
    for (size_t r = from; r < to; ++r) sum += runValue(runs[r], v[r][x], diff.scale);
    return sum / static_cast<double>(to - from);
  };
  std::vector<int32_t> slot(count, -1);
  size_t slots = 0;
  for (size_t x = 0; x < count; ++x) {
    DiffNode& node = t.nodes[x];
    node.base_self = mean(self, 0, nb, x);
    node.next_self = mean(self, nb, n, x);
    node.base_total = mean(total, 0, nb, x);
    node.next_total = mean(total, nb, n, x);
    const double both = node.base_total + node.next_total;
    if (both > 0 && both >= diff.min_change) slot[x] = static_cast<int32_t>(slots++);
  }

  // Per run and block, each tested node's total. Tested nodes are closed
  // under their callers (a caller's total is at least its callee's), so a
  // sample goes to its nearest tested node and the blocks add up from the
  // deepest tested nodes to the root.
  std::vector<uint32_t> nearest(count, kNone);  // the node or its nearest tested caller
  for (size_t x = 0; x < count; ++x) {
    nearest[x] = slot[x] >= 0 ? static_cast<uint32_t>(x)
                 : x == 0     ? kNone
                              : nearest[t.nodes[x].parent];
  }
  const size_t k = runs[0].norm.size();
  std::vector<std::vector<double>> blocks(n, std::vector<double>(slots * k, 0.0));
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < runs[r].samples.size(); ++i) {
      const uint32_t x = nearest[leaf[r][i]];
      if (x == kNone) continue;
      blocks[r][static_cast<size_t>(slot[x]) * k + runs[r].block[i]] +=
          static_cast<double>(runs[r].samples[i].weight);
    }
    for (size_t x = count; x-- > 1;) {
      if (slot[x] < 0) continue;
      const size_t from = static_cast<size_t>(slot[x]) * k;
      const size_t to = static_cast<size_t>(slot[t.nodes[x].parent]) * k;
      for (size_t b = 0; b < k; ++b) blocks[r][to + b] += blocks[r][from + b];
    }
  }
  std::vector<uint32_t> tested;
  std::vector<DiffMeasure> measures;
  for (size_t x = 0; x < count; ++x) {
    if (slot[x] < 0) continue;
    const auto s = static_cast<size_t>(slot[x]);
    auto estimate = [&](size_t from, size_t to) {
      std::vector<std::span<const double>> b;
      for (size_t r = from; r < to; ++r) {
        b.push_back(std::span<const double>(blocks[r]).subspan(s * k, k));
      }
      return sideEstimate(std::span(runs).subspan(from, to - from), b, diff.scale);
    };
    DiffMeasure m;
    m.base = t.nodes[x].base_total;
    m.next = t.nodes[x].next_total;
    judge(m, estimate(0, nb), estimate(nb, n));
    tested.push_back(static_cast<uint32_t>(x));
    measures.push_back(std::move(m));
  }
  std::vector<double> p(measures.size());
  for (size_t i = 0; i < measures.size(); ++i) p[i] = measures[i].p;
  const std::vector<bool> found = stats::benjaminiHochberg(p, opt.fdr);
  t.tests = tested.size();
  for (size_t i = 0; i < tested.size(); ++i) {
    measures[i].discovery = found[i];
    DiffNode& node = t.nodes[tested[i]];
    node.tested = true;
    node.p = measures[i].p;
    node.verdict = measureVerdict(measures[i], diff.min_change);
  }

  // Widths from the leaves up, then children widest first.
  std::vector<double> below(count, 0.0);
  for (size_t x = count; x-- > 0;) {
    DiffNode& node = t.nodes[x];
    node.width = node.next_total > 0 ? node.next_self + below[x] : node.base_total;
    if (node.parent != kNone) below[node.parent] += node.width;
  }
  t.child_start.assign(count + 1, 0);
  for (size_t x = 1; x < count; ++x) ++t.child_start[t.nodes[x].parent + 1];
  for (size_t x = 1; x <= count; ++x) t.child_start[x] += t.child_start[x - 1];
  t.child_list.resize(count > 0 ? count - 1 : 0);
  std::vector<uint32_t> fill(t.child_start.begin(), t.child_start.end() - 1);
  for (size_t x = 1; x < count; ++x)
    t.child_list[fill[t.nodes[x].parent]++] = static_cast<uint32_t>(x);
  for (size_t x = 0; x < count; ++x) {
    auto first = t.child_list.begin() + t.child_start[x];
    auto last = t.child_list.begin() + t.child_start[x + 1];
    std::sort(first, last, [&](uint32_t a, uint32_t b) {
      if (t.nodes[a].width != t.nodes[b].width) return t.nodes[a].width > t.nodes[b].width;
      return t.frames[t.nodes[a].frame].name < t.frames[t.nodes[b].frame].name;
    });
  }
  return t;
}

}  // namespace strobe::model
