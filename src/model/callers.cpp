#include "model/callers.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "model/frames.hpp"

namespace strobe::model {

std::optional<NeighborTable> neighbors(const Profile& p, std::string_view func, bool callees,
                                       bool fold_inline) {
  // Which function keys match: exact names first, else substrings.
  std::unordered_map<uint64_t, std::string> names;  // every key seen, named
  std::unordered_map<StackId, std::pair<uint64_t, uint64_t>> per_stack;
  for (const Sample& s : p.samples()) {
    auto& v = per_stack[s.stack];
    v.first += s.weight;
    v.second += 1;
  }
  for (const auto& [stack, v] : per_stack) {
    forEachDisplayFrame(p, stack, fold_inline, [&](const Frame& f) {
      uint64_t k = functionKey(f);
      if (!names.count(k)) names.emplace(k, frameName(p, f));
    });
  }
  std::set<uint64_t> match;
  for (const auto& [k, n] : names) {
    if (n == func) match.insert(k);
  }
  if (match.empty()) {
    for (const auto& [k, n] : names) {
      if (n.find(func) != std::string::npos) match.insert(k);
    }
  }
  if (match.empty()) return std::nullopt;

  NeighborTable t;
  std::set<std::string> matched_names;
  for (uint64_t k : match) matched_names.insert(names[k]);
  t.matched.assign(matched_names.begin(), matched_names.end());

  std::unordered_map<std::string, Neighbor> rows;
  std::vector<Frame> frames;
  std::vector<std::string> credited;
  for (const auto& [stack, v] : per_stack) {
    frames = rootFirstFrames(p, stack, fold_inline);
    credited.clear();
    bool any = false;
    for (size_t i = 0; i < frames.size(); ++i) {
      if (!match.count(functionKey(frames[i]))) continue;
      any = true;
      std::string n;
      if (callees) {
        n = i + 1 < frames.size() ? frameName(p, frames[i + 1]) : "(self)";
      } else {
        n = i > 0 ? frameName(p, frames[i - 1]) : "(root)";
      }
      if (std::find(credited.begin(), credited.end(), n) != credited.end()) continue;
      credited.push_back(n);
      Neighbor& r = rows[n];
      r.name = n;
      r.weight += v.first;
      r.samples += v.second;
    }
    if (any) {
      t.weight += v.first;
      t.samples += v.second;
    }
  }
  for (auto& [n, r] : rows) t.rows.push_back(std::move(r));
  std::sort(t.rows.begin(), t.rows.end(), [](const Neighbor& a, const Neighbor& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.name < b.name;
  });
  return t;
}

}  // namespace strobe::model
