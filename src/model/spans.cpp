#include "model/spans.hpp"

#include <algorithm>
#include <map>

#include "model/aggregate.hpp"

namespace strobe::model {
namespace {

uint64_t duration(const Span& s) {
  return s.end_ns - s.start_ns;
}

// Nearest rank: the smallest value with at least `pct` percent at or below it.
uint64_t percentile(const std::vector<uint64_t>& sorted, unsigned pct) {
  if (sorted.empty()) return 0;
  size_t rank = (sorted.size() * pct + 99) / 100;
  return sorted[std::max<size_t>(rank, 1) - 1];
}

}  // namespace

std::vector<uint32_t> selectSpans(const Profile& p, const SpanSelection& sel) {
  const std::vector<Span>& spans = p.spans();
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < spans.size(); ++i) {
    if (p.str(spans[i].name) != sel.name) continue;
    if (sel.longer_than_ns && duration(spans[i]) <= *sel.longer_than_ns) continue;
    out.push_back(i);
  }
  if (sel.slowest && out.size() > *sel.slowest) {
    // Longest first; equal durations by time, so the choice is stable.
    std::stable_sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
      return duration(spans[a]) > duration(spans[b]);
    });
    out.resize(*sel.slowest);
  }
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
    if (spans[a].tid != spans[b].tid) return spans[a].tid < spans[b].tid;
    return spans[a].start_ns < spans[b].start_ns;
  });
  return out;
}

bool hasSpanName(const Profile& p, const std::string& name) {
  return std::any_of(p.spans().begin(), p.spans().end(),
                     [&](const Span& s) { return p.str(s.name) == name; });
}

SpanWindows::SpanWindows(const Profile& p, const std::vector<uint32_t>& spans) {
  for (uint32_t i : spans) {
    const Span& s = p.spans()[i];
    by_tid_[s.tid].emplace_back(s.start_ns, s.end_ns);
  }
  for (auto& [tid, v] : by_tid_) {
    std::sort(v.begin(), v.end());
    // Merge nested and overlapping intervals, so lookups need one search.
    size_t out = 0;
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i].first <= v[out].second) {
        v[out].second = std::max(v[out].second, v[i].second);
      } else {
        v[++out] = v[i];
      }
    }
    v.resize(v.empty() ? 0 : out + 1);
  }
}

bool SpanWindows::contains(int32_t tid, uint64_t time_ns) const {
  auto it = by_tid_.find(tid);
  if (it == by_tid_.end()) return false;
  const auto& v = it->second;
  // The last interval starting at or before time_ns.
  auto after = std::upper_bound(v.begin(), v.end(), time_ns,
                                [](uint64_t t, const auto& w) { return t < w.first; });
  if (after == v.begin()) return false;
  return time_ns < std::prev(after)->second;
}

std::vector<SpanRow> spanTable(const Profile& p, bool fold_inline) {
  std::map<std::string, std::vector<uint32_t>> by_name;
  for (uint32_t i = 0; i < p.spans().size(); ++i) by_name[p.str(p.spans()[i].name)].push_back(i);
  std::vector<SpanRow> rows;
  std::vector<Sample> inside;
  for (const auto& [name, idx] : by_name) {
    SpanRow r;
    r.name = name;
    r.count = idx.size();
    std::vector<uint64_t> d;
    d.reserve(idx.size());
    for (uint32_t i : idx) d.push_back(duration(p.spans()[i]));
    std::sort(d.begin(), d.end());
    for (uint64_t v : d) r.total_ns += v;
    r.mean_ns = r.total_ns / r.count;
    r.p50_ns = percentile(d, 50);
    r.p90_ns = percentile(d, 90);
    r.p99_ns = percentile(d, 99);
    r.max_ns = d.back();
    SpanWindows w(p, idx);
    inside.clear();
    for (const Sample& s : p.samples()) {
      if (w.contains(s.tid, s.time_ns)) inside.push_back(s);
    }
    for (const Sample& s : inside) {
      ++r.samples;
      r.weight += s.weight;
    }
    std::vector<TopRow> top = topTable(p, inside, GroupBy::kFunction, fold_inline);
    if (!top.empty()) {
      r.top_function = top.front().function;
      r.top_weight = top.front().self;
    }
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [](const SpanRow& a, const SpanRow& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  return rows;
}

std::string roleLabel(std::string_view role, int32_t index) {
  std::string s(role);
  if (index >= 0 && !s.empty()) {
    s.push_back(' ');
    s.append(std::to_string(index));
  }
  return s;
}

std::string threadTitle(const Profile& p, int32_t tid) {
  const Thread* t = p.findThread(tid);
  if (t != nullptr && !t->role.empty()) return t->role + " (tid " + std::to_string(tid) + ")";
  std::string name = t != nullptr && !t->name.empty() ? t->name : "thread";
  return name + " (" + std::to_string(tid) + ")";
}

}  // namespace strobe::model
