// The top-down call tree: each node is a frame reached by one path of
// callers from the root, with self and total weight (and sample counts).
// Optionally the first level is the thread (by_thread), so each thread has
// its own tree. Children are sorted by total weight, heaviest first.
//
// Recursion appears as nested nodes, so a child never exceeds its parent:
// total(node) = self(node) + sum of total(children).
//
// Thread safety: built once from a const Profile, then read-only. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/frames.hpp"
#include "model/profile.hpp"

namespace strobe::model {

struct CallNode {
  uint32_t parent = kNone;  // kNone for the root
  Frame frame;              // the root and thread nodes have no location
  int32_t tid = 0;          // thread nodes: the thread
  bool is_thread = false;
  uint32_t depth = 0;  // root 0, its children 1, ...
  uint64_t self_weight = 0;
  uint64_t total_weight = 0;
  uint64_t self_samples = 0;
  uint64_t total_samples = 0;
  uint64_t off_cpu_weight = 0;  // the part of total_weight from off-CPU samples
  std::vector<uint32_t> children;
};

struct CallTreeOptions {
  bool fold_inline = false;
  bool by_thread = false;
};

class CallTree {
 public:
  static CallTree build(const Profile& p, const CallTreeOptions& opt);

  const std::vector<CallNode>& nodes() const { return nodes_; }
  const CallNode& root() const { return nodes_[0]; }
  const CallNode& node(uint32_t id) const { return nodes_[id]; }
  // A node's display name: the function, "thread-name (tid)" or "all".
  std::string name(const Profile& p, uint32_t id) const;

 private:
  std::vector<CallNode> nodes_;
};

// Visits nodes depth first, parents before children, in child order:
// f(node id, const CallNode&) returns false to skip that node's subtree.
template <typename F>
void walkDepthFirst(const CallTree& t, F&& f) {
  std::vector<uint32_t> todo{0};
  while (!todo.empty()) {
    uint32_t id = todo.back();
    todo.pop_back();
    const CallNode& n = t.node(id);
    if (!f(id, n)) continue;
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) todo.push_back(*it);
  }
}

}  // namespace strobe::model
