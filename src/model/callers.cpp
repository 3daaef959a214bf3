#include "model/callers.hpp"

#include <algorithm>
#include <unordered_map>

#include "model/frames.hpp"

namespace strobe::model {
namespace {

constexpr uint64_t kRootKey = UINT64_MAX;      // "(root)": the function is the stack's root
constexpr uint64_t kSelfKey = UINT64_MAX - 1;  // "(self)": the function is the leaf

NeighborName nameOf(const Profile& p, const Frame& f) {
  NeighborName n;
  n.name = frameName(p, f);
  const Location& loc = p.locations()[f.location];
  n.module = std::string(p.moduleName(loc.module));
  if (f.line != nullptr && f.line->function < p.functions().size()) {
    const Function& fn = p.functions()[p.identity(f.line->function)];
    n.file = p.str(fn.file);
    n.line = fn.start_line;
  }
  return n;
}

}  // namespace

NeighborTables neighbors(const Profile& p, std::string_view func, bool callees, bool fold_inline) {
  std::unordered_map<StackId, std::pair<uint64_t, uint64_t>> per_stack;
  for (const Sample& s : p.samples()) {
    auto& v = per_stack[s.stack];
    v.first += s.weight;
    v.second += 1;
  }
  // Every function on a sampled stack, named once.
  std::unordered_map<uint64_t, NeighborName> names;
  for (const auto& [stack, v] : per_stack) {
    forEachDisplayFrame(p, stack, fold_inline, [&](const Frame& f) {
      uint64_t k = functionKey(p, f);
      if (!names.count(k)) names.emplace(k, nameOf(p, f));
    });
  }
  NeighborTables out;
  std::unordered_map<uint64_t, size_t> table_of;  // function key -> index in out.tables
  for (const auto& [k, n] : names) {
    if (n.name == func) table_of.emplace(k, 0);
  }
  out.exact = !table_of.empty();
  if (!out.exact) {
    for (const auto& [k, n] : names) {
      if (n.name.find(func) != std::string::npos) table_of.emplace(k, 0);
    }
  }
  if (table_of.empty()) return out;
  for (auto& [k, index] : table_of) {
    index = out.tables.size();
    out.tables.push_back(NeighborTable{names[k], 0, 0, {}});
  }

  // Per table, the neighbors by key; credited once per stack.
  std::vector<std::unordered_map<uint64_t, Neighbor>> rows(out.tables.size());
  std::vector<Frame> frames;
  std::vector<std::pair<size_t, uint64_t>> credited;  // (table, neighbor key) this stack
  std::vector<size_t> seen;                           // tables this stack counts for
  for (const auto& [stack, v] : per_stack) {
    frames = rootFirstFrames(p, stack, fold_inline);
    credited.clear();
    seen.clear();
    for (size_t i = 0; i < frames.size(); ++i) {
      auto t = table_of.find(functionKey(p, frames[i]));
      if (t == table_of.end()) continue;
      size_t table = t->second;
      if (std::find(seen.begin(), seen.end(), table) == seen.end()) {
        seen.push_back(table);
        out.tables[table].weight += v.first;
        out.tables[table].samples += v.second;
      }
      uint64_t nk = 0;
      const Frame* nf = nullptr;
      if (callees) {
        nk = i + 1 < frames.size() ? functionKey(p, frames[i + 1]) : kSelfKey;
        if (i + 1 < frames.size()) nf = &frames[i + 1];
      } else {
        nk = i > 0 ? functionKey(p, frames[i - 1]) : kRootKey;
        if (i > 0) nf = &frames[i - 1];
      }
      std::pair<size_t, uint64_t> c{table, nk};
      if (std::find(credited.begin(), credited.end(), c) != credited.end()) continue;
      credited.push_back(c);
      auto [it, inserted] = rows[table].try_emplace(nk);
      Neighbor& r = it->second;
      if (inserted) {
        if (nf != nullptr) {
          r.who = nameOf(p, *nf);
        } else {
          r.who.name = callees ? "(self)" : "(root)";
        }
      }
      r.weight += v.first;
      r.samples += v.second;
    }
  }
  for (size_t t = 0; t < out.tables.size(); ++t) {
    for (auto& [k, r] : rows[t]) out.tables[t].rows.push_back(std::move(r));
    std::sort(out.tables[t].rows.begin(), out.tables[t].rows.end(),
              [](const Neighbor& a, const Neighbor& b) {
                if (a.weight != b.weight) return a.weight > b.weight;
                if (a.who.name != b.who.name) return a.who.name < b.who.name;
                return a.who.file < b.who.file;
              });
  }
  std::sort(out.tables.begin(), out.tables.end(),
            [](const NeighborTable& a, const NeighborTable& b) {
              if (a.weight != b.weight) return a.weight > b.weight;
              if (a.function.name != b.function.name) return a.function.name < b.function.name;
              return a.function.file < b.function.file;
            });
  return out;
}

}  // namespace strobe::model
