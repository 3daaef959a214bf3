#include "model/address_table.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "model/code.hpp"

namespace strobe::model {
namespace {

struct Key {
  ModuleId module;
  uint64_t start;  // the bucket's first byte: an offset in the module, or an address
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const noexcept {
    return std::hash<uint64_t>{}(k.start * 0x9E3779B97F4A7C15ULL ^ k.module);
  }
};

struct Bucket {
  TopRow row;
  LocationId hottest = kNone;  // the location with the most self (else total) weight
  uint64_t hottest_self = 0;
  uint64_t hottest_total = 0;
  std::unordered_map<LocationId, std::pair<uint64_t, uint64_t>> per_location;  // self, total
};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

void nameBucket(const Profile& p, const CodeIndex& code, const Key& k, Bucket& b) {
  TopRow& r = b.row;
  const Location& loc = p.locations()[b.hottest];
  r.module = std::string(p.moduleName(k.module));
  // Appended, not "[unknown]+" + ...: gcc 12 -O3 warns (-Wrestrict) on that.
  r.address = k.module == kNone ? std::string("[unknown]") : r.module;
  r.address += '+';
  r.address += hex(k.start);
  if (!loc.lines.empty() && loc.lines.front().function != kNone) {
    const Line& inner = loc.lines.front();
    r.file = p.str(p.functions()[inner.function].file);
    r.line = inner.line;
  }
  FunctionId outer = loc.lines.empty() ? kNone : loc.lines.back().function;
  const FunctionCode* c = k.module == kNone ? nullptr : code.find(k.module, loc.offset);
  if (c != nullptr && c->function != kNone) outer = c->function;
  if (outer == kNone) {
    r.function = r.address;  // unresolved: named as unresolved frames are
    return;
  }
  const Function& fn = p.functions()[outer];
  r.function = p.str(fn.name);
  r.system_name = p.str(fn.system_name);
  if (c != nullptr) r.function += "+" + hex(std::max(k.start, c->offset) - c->offset);
}

}  // namespace

std::vector<TopRow> addressTable(const Profile& p, std::span<const Sample> samples,
                                 uint64_t bucket) {
  if (!validBucket(bucket)) bucket = 1;
  const uint64_t mask = ~(bucket - 1);
  struct Sum {
    uint64_t weight = 0;
    uint64_t samples = 0;
  };
  std::unordered_map<StackId, Sum> per_stack;
  for (const Sample& s : samples) {
    if (s.stack == kNone) continue;
    Sum& sum = per_stack[s.stack];
    sum.weight += s.weight;
    sum.samples += 1;
  }
  std::unordered_map<Key, Bucket, KeyHash> buckets;
  std::vector<Key> seen;  // buckets already credited for this stack
  for (const auto& [leaf, sum] : per_stack) {
    seen.clear();
    bool is_leaf = true;
    p.forEachFrame(leaf, [&](LocationId id) {
      const Location& loc = p.locations()[id];
      Key k{loc.module, loc.offset & mask};
      Bucket& b = buckets[k];
      auto& [loc_self, loc_total] = b.per_location[id];
      if (is_leaf) {
        b.row.self += sum.weight;
        b.row.self_samples += sum.samples;
        loc_self += sum.weight;
      }
      is_leaf = false;
      if (std::find(seen.begin(), seen.end(), k) == seen.end()) {
        seen.push_back(k);
        b.row.total += sum.weight;
        b.row.total_samples += sum.samples;
        loc_total += sum.weight;
      }
    });
  }
  const CodeIndex code(p);
  std::vector<std::pair<Key, TopRow>> rows;
  rows.reserve(buckets.size());
  for (auto& [k, b] : buckets) {
    // The hottest address of the bucket names it (lowest offset on ties).
    for (const auto& [id, w] : b.per_location) {
      const uint64_t off = p.locations()[id].offset;
      if (b.hottest == kNone || w.first > b.hottest_self ||
          (w.first == b.hottest_self &&
           (w.second > b.hottest_total ||
            (w.second == b.hottest_total && off < p.locations()[b.hottest].offset)))) {
        b.hottest = id;
        b.hottest_self = w.first;
        b.hottest_total = w.second;
      }
    }
    nameBucket(p, code, k, b);
    rows.emplace_back(k, std::move(b.row));
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.second.self != b.second.self) return a.second.self > b.second.self;
    if (a.second.total != b.second.total) return a.second.total > b.second.total;
    if (a.first.module != b.first.module) return a.first.module < b.first.module;
    return a.first.start < b.first.start;
  });
  std::vector<TopRow> out;
  out.reserve(rows.size());
  for (auto& [k, r] : rows) out.push_back(std::move(r));
  return out;
}

}  // namespace strobe::model
