#include "model/aggregate.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace strobe::model {
namespace {

// A key identifies what a row aggregates: a function (+ line for kLine), or
// an unresolved location. The top bit separates the two spaces.
constexpr uint64_t kUnresolvedBit = 1ULL << 63;

uint64_t frameKey(GroupBy by, const Line& l) {
  uint64_t k = l.function;
  if (by == GroupBy::kLine) k = (k << 32) | l.line;
  return k;
}

}  // namespace

std::string unresolvedName(const Profile& p, const Location& loc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(loc.offset));
  if (loc.module == kNone) {
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(loc.address));
    return std::string("[unknown]+") + buf;
  }
  return std::string(p.moduleName(loc.module)) + buf;
}

Totals totals(const Profile& p) {
  Totals t;
  std::unordered_set<int32_t> tids;
  for (const Sample& s : p.samples()) {
    ++t.samples;
    t.weight += s.weight;
    tids.insert(s.tid);
  }
  t.threads = tids.size();
  return t;
}

std::vector<TopRow> topTable(const Profile& p, GroupBy by) {
  // Weight per distinct leaf stack first: many samples share a stack.
  std::unordered_map<StackId, uint64_t> per_stack;
  for (const Sample& s : p.samples()) per_stack[s.stack] += s.weight;

  std::unordered_map<uint64_t, TopRow> rows;
  auto rowFor = [&](uint64_t key, const Location& loc, const Line* line) -> TopRow& {
    auto [it, inserted] = rows.try_emplace(key);
    if (inserted) {
      TopRow& r = it->second;
      r.module = std::string(p.moduleName(loc.module));
      if (line == nullptr) {
        r.function = unresolvedName(p, loc);
      } else {
        const Function& f = p.functions()[line->function];
        r.function = p.str(f.name);
        r.file = p.str(f.file);
        r.line = by == GroupBy::kLine ? line->line : f.start_line;
      }
    }
    return it->second;
  };

  std::vector<uint64_t> seen;  // keys already credited for this stack
  for (const auto& [leaf, weight] : per_stack) {
    seen.clear();
    bool is_leaf = true;
    p.forEachFrame(leaf, [&](LocationId lid) {
      const Location& loc = p.locations()[lid];
      auto credit = [&](uint64_t key, const Line* line) {
        TopRow& r = rowFor(key, loc, line);
        if (is_leaf) r.self += weight;
        is_leaf = false;
        if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
          seen.push_back(key);
          r.total += weight;
        }
      };
      if (loc.lines.empty()) {
        credit(kUnresolvedBit | lid, nullptr);
      } else {
        for (const Line& l : loc.lines) credit(frameKey(by, l), &l);
      }
    });
  }

  std::vector<TopRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const TopRow& a, const TopRow& b) {
    if (a.self != b.self) return a.self > b.self;
    if (a.total != b.total) return a.total > b.total;
    if (a.function != b.function) return a.function < b.function;
    return a.line < b.line;
  });
  return out;
}

}  // namespace strobe::model
