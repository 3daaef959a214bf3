#include "model/call_tree.hpp"

#include <algorithm>
#include <unordered_map>

namespace strobe::model {
namespace {

constexpr uint64_t kInlinedKeyBit = 1ULL << 62;

size_t childSlot(uint32_t parent, uint64_t frame_key, size_t mask) {
  uint64_t h = (frame_key ^ (static_cast<uint64_t>(parent) << 20)) * 0x9E3779B97F4A7C15ULL;
  return static_cast<size_t>(h >> 32) & mask;
}

class Builder {
 public:
  Builder(const Profile& p, const CallTreeOptions& opt, std::vector<CallNode>& nodes)
      : p_(p), opt_(opt), nodes_(nodes) {
    // A tree has about as many nodes as the profile has stack nodes.
    size_t expect = p.stacks().size() + 1;
    nodes_.reserve(expect);
    keys_.reserve(expect);
    keys_.push_back(0);  // the root
    size_t slots = 64;
    while (slots < expect * 2) slots *= 2;
    slots_.assign(slots, kNone);
  }

  uint32_t threadRoot(int32_t tid) {
    if (!opt_.by_thread) return 0;
    auto [it, inserted] = thread_roots_.try_emplace(tid, 0);
    if (inserted) {
      it->second = newNode(0, Frame{});
      nodes_[it->second].is_thread = true;
      nodes_[it->second].tid = tid;
    }
    return it->second;
  }

  // The node of stack `leaf` under `root` (memoized per stack and root).
  uint32_t nodeFor(uint32_t root, StackId leaf) {
    if (leaf == kNone) return root;
    auto& memo = memo_[root];
    if (memo.empty()) memo.assign(p_.stacks().size(), kNone);
    // Walk up to the first memoized ancestor, then come back down.
    path_.clear();
    StackId s = leaf;
    while (s != kNone && memo[s] == kNone) {
      path_.push_back(s);
      s = p_.stacks()[s].parent;
    }
    uint32_t node = s == kNone ? root : memo[s];
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      frames_.clear();
      forEachLocationFrame(p_, p_.stacks()[*it].location, opt_.fold_inline,
                           [&](const Frame& f) { frames_.push_back(f); });
      for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) node = child(node, *f);
      memo[*it] = node;
    }
    return node;
  }

 private:
  uint32_t newNode(uint32_t parent, const Frame& f) {
    CallNode n;
    n.parent = parent;
    n.frame = f;
    n.depth = nodes_[parent].depth + 1;
    nodes_.push_back(std::move(n));
    keys_.push_back(frameKey(f));
    auto id = static_cast<uint32_t>(nodes_.size() - 1);
    nodes_[parent].children.push_back(id);
    return id;
  }

  static uint64_t frameKey(const Frame& f) {
    return functionKey(f) | (f.inlined ? kInlinedKeyBit : 0);
  }

  // Children are found through an open-addressing table of node ids
  // (kNone: empty), probed linearly and kept at most half full.
  uint32_t child(uint32_t parent, const Frame& f) {
    uint64_t key = frameKey(f);
    size_t mask = slots_.size() - 1;
    for (size_t i = childSlot(parent, key, mask);; i = (i + 1) & mask) {
      uint32_t id = slots_[i];
      if (id == kNone) {
        id = newNode(parent, f);
        slots_[i] = id;
        if (nodes_.size() * 2 > slots_.size()) regrow();
        return id;
      }
      if (keys_[id] == key && nodes_[id].parent == parent && !nodes_[id].is_thread) return id;
    }
  }

  void regrow() {
    slots_.assign(slots_.size() * 2, kNone);
    size_t mask = slots_.size() - 1;
    for (uint32_t id = 1; id < nodes_.size(); ++id) {
      if (nodes_[id].is_thread) continue;
      size_t i = childSlot(nodes_[id].parent, keys_[id], mask);
      while (slots_[i] != kNone) i = (i + 1) & mask;
      slots_[i] = id;
    }
  }

  const Profile& p_;
  const CallTreeOptions& opt_;
  std::vector<CallNode>& nodes_;
  std::unordered_map<int32_t, uint32_t> thread_roots_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> memo_;
  std::vector<uint32_t> slots_;  // frame children by (parent, frame key)
  std::vector<uint64_t> keys_;   // per node: frameKey (unused for the root and threads)
  std::vector<StackId> path_;
  std::vector<Frame> frames_;
};

}  // namespace

CallTree CallTree::build(const Profile& p, const CallTreeOptions& opt) {
  CallTree t;
  t.nodes_.emplace_back();  // the root
  Builder b(p, opt, t.nodes_);
  for (const Sample& s : p.samples()) {
    uint32_t leaf = b.nodeFor(b.threadRoot(s.tid), s.stack);
    t.nodes_[leaf].self_weight += s.weight;
    t.nodes_[leaf].self_samples += 1;
    if (s.kind == SampleKind::kOffCpu) t.nodes_[leaf].off_cpu_weight += s.weight;
  }
  // Children are created after their parents: sum totals from the back.
  for (size_t i = t.nodes_.size(); i-- > 0;) {
    CallNode& n = t.nodes_[i];
    n.total_weight += n.self_weight;
    n.total_samples += n.self_samples;
    if (i != 0) {
      t.nodes_[n.parent].total_weight += n.total_weight;
      t.nodes_[n.parent].total_samples += n.total_samples;
      t.nodes_[n.parent].off_cpu_weight += n.off_cpu_weight;
    }
  }
  for (CallNode& n : t.nodes_) {
    if (n.children.size() < 2) continue;
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
      if (t.nodes_[a].total_weight != t.nodes_[b].total_weight) {
        return t.nodes_[a].total_weight > t.nodes_[b].total_weight;
      }
      return a < b;  // first seen first
    });
  }
  return t;
}

std::string CallTree::name(const Profile& p, uint32_t id) const {
  const CallNode& n = nodes_[id];
  if (id == 0) return "all";
  if (n.is_thread) {
    const Thread* th = p.findThread(n.tid);
    std::string name = th != nullptr && !th->name.empty() ? th->name : "thread";
    return name + " (" + std::to_string(n.tid) + ")";
  }
  return frameName(p, n.frame);
}

}  // namespace strobe::model
