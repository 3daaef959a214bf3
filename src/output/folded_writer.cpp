#include "output/folded_writer.hpp"

#include <string>
#include <vector>

#include "model/call_tree.hpp"

namespace strobe::output {
namespace {

std::string foldedName(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return name;
}

}  // namespace

Status writeFolded(const model::Profile& p, const FoldedOptions& opt, std::FILE* out) {
  model::CallTree tree = model::CallTree::build(p, {opt.no_inline, opt.per_thread});
  // The path from the root to the current node, as "a;b;c".
  std::string path;
  std::vector<size_t> path_len(tree.nodes().size(), 0);
  model::walkDepthFirst(tree, [&](uint32_t id, const model::CallNode& n) {
    if (id == 0) return true;
    path.resize(path_len[n.parent]);
    if (!path.empty()) path += ';';
    path += foldedName(tree.name(p, id));
    path_len[id] = path.size();
    if (n.self_weight > 0) {
      std::fprintf(out, "%s %llu\n", path.c_str(), static_cast<unsigned long long>(n.self_weight));
    }
    return true;
  });
  return {};
}

}  // namespace strobe::output
