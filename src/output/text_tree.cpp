// The text report's call tree and callers / callees views.
#include <fmt/format.h>

#include "base/terminal_text.hpp"
#include "model/call_tree.hpp"
#include "model/callers.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"

namespace strobe::output {
namespace {

// "name (file.cpp:12)", "name (libfoo.so)" or "name": a function as the
// callers / callees tables head it.
std::string located(const model::NeighborName& n) {
  std::string where;
  if (!n.file.empty()) {
    auto slash = n.file.rfind('/');
    where = slash == std::string::npos ? n.file : n.file.substr(slash + 1);
    if (n.line != 0) where += fmt::format(":{}", n.line);
  } else {
    where = n.module;
  }
  return terminalSafe(where.empty() ? n.name : fmt::format("{} ({})", n.name, where));
}

}  // namespace

void writeCallTree(const model::Profile& p, const TextOptions& opt, std::FILE* out) {
  model::CallTree tree =
      model::CallTree::build(p, {opt.no_inline, opt.by == model::GroupBy::kThread});
  const uint64_t total = tree.root().total_weight;
  if (total == 0) {
    fmt::print(out, "(no samples)\n");
    return;
  }
  // TOTAL% SELF% TOTAL-TIME and their gaps: 30 columns before the tree.
  constexpr size_t kFixed = 30;
  const model::Measure m = model::measureOf(p);
  fmt::print(out, "{:>6}  {:>6}  {:>10}  {}\n", "TOTAL%", "SELF%",
             m.time() ? "TOTAL-TIME" : "TOTAL", "CALL TREE");
  std::string line;
  model::walkDepthFirst(tree, [&](uint32_t id, const model::CallNode& n) {
    double share = sharePct(n.total_weight, total);
    if (id != 0 && share < opt.threshold_pct) return false;
    line.assign(2 * n.depth, ' ');
    std::string name = terminalSafe(tree.name(p, id));
    if (n.frame.inlined) name += " [inlined]";
    size_t room = kNoWidthLimit;
    if (opt.width != kNoWidthLimit) {
      room = opt.width > kFixed + line.size() + 20 ? opt.width - kFixed - line.size() : 20;
    }
    line += fitMiddle(name, room);
    fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>10}  {}\n", share, sharePct(n.self_weight, total),
               formatWeight(n.total_weight, m), line);
    return true;
  });
}

bool writeCallers(const model::Profile& p, const TextOptions& opt, const std::string& func,
                  bool callees, std::FILE* out) {
  model::NeighborTables found = model::neighbors(p, func, callees, opt.no_inline);
  if (found.tables.empty()) return false;
  const uint64_t total = model::totals(p).weight;
  const model::Measure m = model::measureOf(p);
  const char* what = callees ? "callees" : "callers";
  if (!found.exact) {
    fmt::print(out, "no function is named '{}'; {} of the {} whose name contains it:\n\n",
               terminalSafe(func), what,
               found.tables.size() == 1 ? std::string("one function")
                                        : fmt::format("{} functions", found.tables.size()));
  } else if (found.tables.size() > 1) {
    fmt::print(out, "{} functions are named '{}'; {} of each:\n\n", found.tables.size(),
               terminalSafe(func), what);
  }
  // OF-FN% ALL% TIME and their gaps: 30 columns before the name.
  constexpr size_t kFixed = 30;
  const size_t room = opt.width == kNoWidthLimit ? kNoWidthLimit
                      : opt.width > kFixed + 20  ? opt.width - kFixed
                                                 : 20;
  bool first = true;
  for (const model::NeighborTable& t : found.tables) {
    if (!first) fmt::print(out, "\n");
    first = false;
    fmt::print(out, "{} of {} ({:.1f}% of all, {}):\n", what, located(t.function),
               sharePct(t.weight, total), formatWeight(t.weight, m));
    fmt::print(out, "{:>6}  {:>6}  {:>10}  {}\n", "OF-FN%", "ALL%", m.time() ? "TIME" : "COUNT",
               callees ? "CALLEE" : "CALLER");
    size_t shown = 0;
    for (const model::Neighbor& r : t.rows) {
      if (sharePct(r.weight, total) < opt.threshold_pct) continue;
      if (++shown > opt.top) break;
      fmt::print(out, "{:>5.1f}%  {:>5.1f}%  {:>10}  {}\n", sharePct(r.weight, t.weight),
                 sharePct(r.weight, total), formatWeight(r.weight, m),
                 fitMiddle(located(r.who), room));
    }
  }
  return true;
}

}  // namespace strobe::output
