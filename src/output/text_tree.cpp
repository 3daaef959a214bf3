// The text report's call tree and callers / callees views.
#include <fmt/format.h>

#include "base/terminal_text.hpp"
#include "model/call_tree.hpp"
#include "model/callers.hpp"
#include "output/text_report.hpp"

namespace strobe::output {

void writeCallTree(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  model::CallTree tree =
      model::CallTree::build(p, {opt.no_inline, opt.by == model::GroupBy::kThread});
  const uint64_t total = tree.root().total_weight;
  if (total == 0) {
    fmt::print(out, "(no samples)\n");
    return;
  }
  const model::Measure m = model::measureOf(p);
  fmt::print(out, "{:>6}  {:>6}  {:>10}  {}\n", "TOTAL%", "SELF%",
             m.time() ? "TOTAL-TIME" : "TOTAL", "CALL TREE");
  std::string line;
  model::walkDepthFirst(tree, [&](uint32_t id, const model::CallNode& n) {
    double share = sharePct(n.total_weight, total);
    if (id != 0 && share < opt.threshold_pct) return false;
    line.assign(2 * n.depth, ' ');
    line += terminalSafe(tree.name(p, id));
    if (n.frame.inlined) line += " [inlined]";
    fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>10}  {}\n", share, sharePct(n.self_weight, total),
               formatWeight(n.total_weight, m), line);
    return true;
  });
}

bool writeCallers(const model::Profile& p, const TextOptions& opt, const std::string& func,
                  bool callees, std::FILE* out) {
  auto t = model::neighbors(p, func, callees, opt.no_inline);
  if (!t) return false;
  const uint64_t total = model::totals(p).weight;
  const model::Measure m = model::measureOf(p);
  std::string names;
  for (const std::string& n : t->matched) names += (names.empty() ? "" : ", ") + terminalSafe(n);
  fmt::print(out, "{} of {} ({:.1f}% of all, {}):\n", callees ? "callees" : "callers", names,
             sharePct(t->weight, total), formatWeight(t->weight, m));
  fmt::print(out, "{:>6}  {:>6}  {:>10}  {}\n", "OF-FN%", "ALL%", m.time() ? "TIME" : "COUNT",
             callees ? "CALLEE" : "CALLER");
  size_t shown = 0;
  for (const model::Neighbor& r : t->rows) {
    if (sharePct(r.weight, total) < opt.threshold_pct) continue;
    if (++shown > opt.top) break;
    fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>10}  {}\n", sharePct(r.weight, t->weight),
               sharePct(r.weight, total), formatWeight(r.weight, m), terminalSafe(r.name));
  }
  return true;
}

}  // namespace strobe::output
