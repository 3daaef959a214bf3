#include "model/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "model/address_table.hpp"
#include "model/frames.hpp"
#include "model/spans.hpp"
#include "model/symbol_names.hpp"

namespace strobe::model {
namespace {

// A key identifies what a row aggregates: a function (its identity, see
// frames.hpp), a function's line in one file, a file or a module.
struct RowKey {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const RowKey&) const = default;
};
struct RowKeyHash {
  size_t operator()(const RowKey& k) const noexcept {
    return std::hash<uint64_t>{}(k.a * 0x9E3779B97F4A7C15ULL ^ k.b);
  }
};

RowKey rowKey(const Profile& p, GroupBy by, const Frame& f) {
  switch (by) {
    case GroupBy::kFunction:
      return {functionKey(p, f), 0};
    case GroupBy::kLine:
      if (f.line == nullptr) return {functionKey(p, f), 0};
      return {functionKey(p, f),
              (static_cast<uint64_t>(lineFile(p, *f.line)) << 32) | f.line->line};
    case GroupBy::kFile:
      if (f.line == nullptr) return {kUnresolvedKeyBit | p.locations()[f.location].module, 0};
      return {lineFile(p, *f.line), 0};
    case GroupBy::kModule:
    case GroupBy::kThread:
    case GroupBy::kProcess:
    case GroupBy::kAddress:  // its own table (address_table.hpp)
      return {p.locations()[f.location].module, 0};
  }
  return {};
}

void nameRow(const Profile& p, GroupBy by, const Frame& f, TopRow& r) {
  const Location& loc = p.locations()[f.location];
  r.module = std::string(p.moduleName(loc.module));
  if (by == GroupBy::kModule) {
    r.function = r.module;
    if (loc.module != kNone) r.module_path = p.str(p.modules()[loc.module].path);
    return;
  }
  if (f.line == nullptr) {
    r.function = by == GroupBy::kFile ? r.module : unresolvedName(p, loc);
    return;
  }
  if (f.line->function >= p.functions().size()) {
    r.function = "??";
    return;
  }
  // The identity's own entry: a clone reads as the function it came from.
  const Function& fn = p.functions()[p.identity(f.line->function)];
  if (by == GroupBy::kFile || by == GroupBy::kLine) {
    r.file = p.str(lineFile(p, *f.line));
  } else {
    r.file = p.str(fn.file);
  }
  if (by == GroupBy::kFile) {
    r.function = r.file.empty() ? "[unknown file]" : r.file;
    return;
  }
  r.function = p.str(fn.name);
  r.system_name = std::string(cloneBase(p.str(fn.system_name)));
  r.line = by == GroupBy::kLine ? f.line->line : fn.start_line;
}

std::vector<TopRow> threadTable(const Profile& p, std::span<const Sample> samples) {
  std::unordered_map<int32_t, TopRow> rows;
  for (const Sample& s : samples) {
    TopRow& r = rows[s.tid];
    r.self += s.weight;
    r.total += s.weight;
    r.self_samples += 1;
    r.total_samples += 1;
  }
  std::vector<TopRow> out;
  for (auto& [tid, r] : rows) {
    r.function = threadTitle(p, tid);
    out.push_back(std::move(r));
  }
  return out;
}

// One row per process: the pid of each sample's thread (its own tid when
// the thread is unknown), named after the process's main thread.
std::vector<TopRow> processTable(const Profile& p, std::span<const Sample> samples) {
  std::unordered_map<int32_t, TopRow> rows;
  for (const Sample& s : samples) {
    const Thread* t = p.findThread(s.tid);
    TopRow& r = rows[t != nullptr ? t->pid : s.tid];
    r.self += s.weight;
    r.total += s.weight;
    r.self_samples += 1;
    r.total_samples += 1;
  }
  std::unordered_map<int32_t, std::string> names;
  for (const Thread& t : p.threads()) {
    std::string& n = names[t.pid];
    if (t.tid == t.pid || n.empty()) n = t.name;
  }
  std::vector<TopRow> out;
  for (auto& [pid, r] : rows) {
    const std::string& name = names[pid];
    r.function = (name.empty() ? std::string("process") : name) + " (" + std::to_string(pid) + ")";
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::string_view eventUnit(std::string_view event) {
  if (event.empty() || event == "cpu-clock" || event == "task-clock" || event == "wall-clock") {
    return "ns";
  }
  if (event == "page-faults") return "faults";
  if (event == "context-switches") return "switches";
  if (event == "cycles") return "cycles";
  if (event == "instructions") return "instructions";
  if (event == "cache-misses" || event == "branch-misses") return "misses";
  return "events";
}

std::string unresolvedName(const Profile& p, const Location& loc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(loc.offset));
  if (loc.module == kNone) {
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(loc.address));
    return std::string("[unknown]+") + buf;
  }
  return std::string(p.moduleName(loc.module)) + buf;
}

double shareStdErrorPct(uint64_t part, uint64_t all) {
  const double n = static_cast<double>(all) + 4.0;
  const double q = (static_cast<double>(std::min(part, all)) + 2.0) / n;
  return 100.0 * std::sqrt(q * (1.0 - q) / n);
}

bool sharesAreSampled(std::span<const Sample> samples) {
  return std::none_of(samples.begin(), samples.end(),
                      [](const Sample& s) { return s.kind == SampleKind::kOffCpu; });
}

Totals totals(const Profile& p) {
  return totals(std::span<const Sample>(p.samples()));
}

Totals totals(std::span<const Sample> samples) {
  Totals t;
  std::unordered_set<int32_t> tids;
  for (const Sample& s : samples) {
    ++t.samples;
    t.weight += s.weight;
    tids.insert(s.tid);
  }
  t.threads = tids.size();
  return t;
}

StackRows stackRows(const Profile& p, std::span<const Sample> samples, GroupBy by,
                    bool fold_inline) {
  StackRows out;
  if (by == GroupBy::kThread || by == GroupBy::kProcess || by == GroupBy::kAddress) return out;
  // Weight per distinct leaf stack first: many samples share a stack.
  struct Sum {
    uint64_t weight = 0;
    uint64_t samples = 0;
  };
  std::unordered_map<StackId, Sum> per_stack;
  for (const Sample& s : samples) {
    Sum& sum = per_stack[s.stack];
    sum.weight += s.weight;
    sum.samples += 1;
  }

  std::unordered_map<RowKey, uint32_t, RowKeyHash> ids;
  // A row is credited once per stack (recursion repeats it): each row
  // remembers the last stack that credited it, so deep recursive stacks
  // cost their depth, not its square.
  std::vector<size_t> credited_by;
  out.index.reserve(per_stack.size());
  out.start.reserve(per_stack.size() + 1);
  for (const auto& [leaf, sum] : per_stack) {
    const size_t stack_index = out.start.size();
    out.index.emplace(leaf, static_cast<uint32_t>(out.start.size()));
    out.start.push_back(static_cast<uint32_t>(out.row_ids.size()));
    bool is_leaf = true;
    forEachDisplayFrame(p, leaf, fold_inline, [&](const Frame& f) {
      RowKey key = rowKey(p, by, f);
      auto [it, inserted] = ids.try_emplace(key, static_cast<uint32_t>(out.rows.size()));
      if (inserted) {
        out.rows.emplace_back();
        out.frames.push_back(f);
        nameRow(p, by, f, out.rows.back());
        credited_by.push_back(SIZE_MAX);
      }
      TopRow& r = out.rows[it->second];
      if (is_leaf) {
        r.self += sum.weight;
        r.self_samples += sum.samples;
      }
      is_leaf = false;
      if (credited_by[it->second] != stack_index) {
        credited_by[it->second] = stack_index;
        out.row_ids.push_back(it->second);
        r.total += sum.weight;
        r.total_samples += sum.samples;
      }
    });
  }
  out.start.push_back(static_cast<uint32_t>(out.row_ids.size()));
  return out;
}

std::span<const uint32_t> StackRows::rowsOf(StackId s) const {
  auto it = index.find(s);
  if (it == index.end()) return {};
  return std::span<const uint32_t>(row_ids).subspan(start[it->second],
                                                    start[it->second + 1] - start[it->second]);
}

std::vector<TopRow> topTable(const Profile& p, GroupBy by, bool fold_inline) {
  return topTable(p, std::span<const Sample>(p.samples()), by, fold_inline);
}

std::vector<TopRow> topTable(const Profile& p, std::span<const Sample> samples, GroupBy by,
                             bool fold_inline) {
  if (by == GroupBy::kAddress) return addressTable(p, samples, 1);
  std::vector<TopRow> out;
  if (by == GroupBy::kThread) {
    out = threadTable(p, samples);
  } else if (by == GroupBy::kProcess) {
    out = processTable(p, samples);
  } else {
    out = std::move(stackRows(p, samples, by, fold_inline).rows);
  }
  // Sorted as indices, then moved once: a TopRow is five strings, and the
  // sort's own moves of thousands of rows cost more than its comparisons.
  // The same comparisons in the same order give the same permutation.
  std::vector<uint32_t> order(out.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&out](uint32_t i, uint32_t j) {
    const TopRow& a = out[i];
    const TopRow& b = out[j];
    if (a.self != b.self) return a.self > b.self;
    if (a.total != b.total) return a.total > b.total;
    if (a.function != b.function) return a.function < b.function;
    return a.line < b.line;
  });
  std::vector<TopRow> sorted;
  sorted.reserve(out.size());
  for (uint32_t i : order) sorted.push_back(std::move(out[i]));
  return sorted;
}

namespace {
constexpr std::pair<GroupBy, std::string_view> kGroupByNames[] = {
    {GroupBy::kFunction, "function"}, {GroupBy::kLine, "line"},     {GroupBy::kFile, "file"},
    {GroupBy::kModule, "module"},     {GroupBy::kThread, "thread"}, {GroupBy::kProcess, "process"},
    {GroupBy::kAddress, "address"},
};
}  // namespace

std::string_view groupByName(GroupBy by) {
  for (const auto& [g, name] : kGroupByNames) {
    if (g == by) return name;
  }
  return "function";
}

std::optional<GroupBy> parseGroupBy(std::string_view name) {
  for (const auto& [g, n] : kGroupByNames) {
    if (n == name) return g;
  }
  return std::nullopt;
}

}  // namespace strobe::model
