#include "model/call_tree.hpp"

#include <algorithm>
#include <unordered_map>

namespace strobe::model {
namespace {

constexpr uint64_t kInlinedKeyBit = 1ULL << 62;

struct ChildKey {
  uint32_t parent;
  uint64_t frame;
  bool operator==(const ChildKey&) const = default;
};
struct ChildKeyHash {
  size_t operator()(const ChildKey& k) const noexcept {
    return std::hash<uint64_t>{}(k.frame * 0x9E3779B97F4A7C15ULL ^ k.parent);
  }
};

class Builder {
 public:
  Builder(const Profile& p, const CallTreeOptions& opt, std::vector<CallNode>& nodes)
      : p_(p), opt_(opt), nodes_(nodes) {}

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
    auto id = static_cast<uint32_t>(nodes_.size() - 1);
    nodes_[parent].children.push_back(id);
    return id;
  }

  uint32_t child(uint32_t parent, const Frame& f) {
    uint64_t key = functionKey(f) | (f.inlined ? kInlinedKeyBit : 0);
    auto [it, inserted] = children_.try_emplace(ChildKey{parent, key}, 0);
    if (inserted) it->second = newNode(parent, f);
    return it->second;
  }

  const Profile& p_;
  const CallTreeOptions& opt_;
  std::vector<CallNode>& nodes_;
  std::unordered_map<int32_t, uint32_t> thread_roots_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> memo_;
  std::unordered_map<ChildKey, uint32_t, ChildKeyHash> children_;
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
  }
  // Children are created after their parents: sum totals from the back.
  for (size_t i = t.nodes_.size(); i-- > 0;) {
    CallNode& n = t.nodes_[i];
    n.total_weight += n.self_weight;
    n.total_samples += n.self_samples;
    if (i != 0) {
      t.nodes_[n.parent].total_weight += n.total_weight;
      t.nodes_[n.parent].total_samples += n.total_samples;
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
