#include "symbolize/unit_index.hpp"

#include "symbolize/line_program.hpp"
#include "symbolize/radix_sort.hpp"
#include "symbolize/scope_scan.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace strobe::symbolize {
namespace {

// Puts rows (in program order, or libdw's) in address order. A sequence's
// rows are in address order (DWARF requires addresses not to decrease within
// one), so when no two sequences overlap, ordering the sequences by their
// first address is enough: a sort of a few hundred sequences instead of
// ~100,000 rows. Rows at one address keep their order, and only where one
// sequence ends another may start. Otherwise every row is sorted.
void sortRows(std::vector<LineRow>& rows, std::vector<LineRow>& scratch) {
  struct Sequence {
    uint64_t lo, hi;
    size_t begin, end;
  };
  std::vector<Sequence> seqs;
  bool ordered = true;  // each sequence's addresses do not decrease
  for (size_t i = 0; i < rows.size() && ordered;) {
    size_t j = i;
    while (j < rows.size() && !rows[j].end) {
      if (j > i && rows[j].addr < rows[j - 1].addr) ordered = false;
      ++j;
    }
    if (j < rows.size()) {
      if (j > i && rows[j].addr < rows[j - 1].addr) ordered = false;
      ++j;  // the end row
    }
    seqs.push_back(Sequence{rows[i].addr, rows[j - 1].addr, i, j});
    i = j;
  }
  if (ordered) {
    std::stable_sort(seqs.begin(), seqs.end(),
                     [](const Sequence& a, const Sequence& b) { return a.lo < b.lo; });
    for (size_t k = 1; k < seqs.size() && ordered; ++k) ordered = seqs[k].lo >= seqs[k - 1].hi;
  }
  if (!ordered) {
    std::sort(rows.begin(), rows.end(), [](const LineRow& x, const LineRow& y) {
      return x.addr != y.addr ? x.addr < y.addr : x.order < y.order;
    });
    return;
  }
  if (std::is_sorted(seqs.begin(), seqs.end(),
                     [](const Sequence& a, const Sequence& b) { return a.begin < b.begin; })) {
    return;  // already in address order
  }
  scratch.clear();
  scratch.reserve(rows.size());
  for (const Sequence& q : seqs) {
    scratch.insert(scratch.end(), rows.begin() + static_cast<ptrdiff_t>(q.begin),
                   rows.begin() + static_cast<ptrdiff_t>(q.end));
  }
  rows.swap(scratch);
}

// The unit's line table from its rows in address order, into `u`'s
// line_lo / line_info (cleared first); `files`: the file table's size.
void indexLines(const std::vector<LineRow>& rows, size_t files, UnitIndex& u) {
  // Per address, the last row that does not end a sequence covers up to
  // the next address; an address with only sequence ends starts a gap.
  u.line_lo.clear();
  u.line_info.clear();
  uint64_t open_end = 0;  // the end of the last range pushed, while no range follows it
  bool open = false;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    const LineRow* pick = nullptr;
    for (; j < rows.size() && rows[j].addr == rows[i].addr; ++j) {
      if (!rows[j].end) pick = &rows[j];
    }
    if (pick != nullptr && j < rows.size()) {
      if (open && open_end != pick->addr) {
        u.line_lo.push_back(open_end);
        u.line_info.push_back(LineInfo{kGapLine, kNoFile, 0});
      }
      u.line_lo.push_back(pick->addr);
      uint32_t file = pick->file < files ? pick->file : kNoFile;
      u.line_info.push_back(LineInfo{pick->line, file, pick->discriminator});
      open_end = rows[j].addr;
      open = true;
    }
    i = j;
  }
  if (open) {
    u.line_lo.push_back(open_end);
    u.line_info.push_back(LineInfo{kGapLine, kNoFile, 0});
  }
}

// Paints the scopes' code ranges so the innermost scope owns each address:
// a later range (in DIE order) paints over earlier ones. At each boundary
// the owner is the latest range that covers it (a heap of started ranges
// by DIE order; ranges that ended leave it when they reach the top).
void paint(const std::vector<CodeRange>& ranges, PaintBuffers& buf, UnitIndex& u) {
  u.segment_lo.clear();
  u.segment_scope.clear();
  std::vector<uint64_t>& bounds = buf.bounds;
  bounds.clear();
  for (const CodeRange& r : ranges) {
    bounds.push_back(r.lo);
    bounds.push_back(r.hi);
  }
  radixSort(bounds, buf.bounds_scratch, [](uint64_t a) { return a; });
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<uint32_t>& by_lo = buf.by_lo;
  by_lo.resize(ranges.size());
  for (uint32_t i = 0; i < by_lo.size(); ++i) by_lo[i] = i;
  radixSort(by_lo, buf.by_lo_scratch, [&](uint32_t i) { return ranges[i].lo; });
  std::vector<uint32_t>& heap = buf.heap;  // max-heap of range indexes
  heap.clear();
  size_t next = 0;
  int32_t owner = -1;
  for (uint64_t at : bounds) {
    for (; next < by_lo.size() && ranges[by_lo[next]].lo <= at; ++next) {
      heap.push_back(by_lo[next]);
      std::push_heap(heap.begin(), heap.end());
    }
    while (!heap.empty() && ranges[heap.front()].hi <= at) {
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
    }
    int32_t now = heap.empty() ? -1 : ranges[heap.front()].scope;
    if (now != owner) {
      u.segment_lo.push_back(at);
      u.segment_scope.push_back(now);
      owner = now;
    }
  }
}

}  // namespace

std::string joinDir(const char* dir, const char* file) {
  if (file == nullptr) return {};
  std::string path(file);
  if (path.empty() || path.front() == '/') return path;
  if (dir == nullptr || *dir == '\0') return path;
  std::string joined(dir);
  if (joined.back() != '/') joined.push_back('/');
  return joined + path;
}

void StartBuckets::build(const std::vector<uint64_t>& starts) {
  first.clear();
  if (starts.size() < 16) return;  // a plain binary search is as quick
  base = starts.front();
  const uint64_t span = starts.back() - base;
  // About four starts a bucket, and never more buckets than twice the
  // starts, however sparse the addresses.
  shift = 0;
  while (shift < 63 && (span >> shift) > starts.size() / 4) ++shift;
  // first[k]: the first start whose bucket, (start - base) >> shift, is k
  // or later (computed on offsets from base: nothing overflows).
  const size_t n = static_cast<size_t>(span >> shift) + 2;
  first.resize(n);
  size_t i = 0;
  for (size_t k = 0; k < n; ++k) {
    while (i < starts.size() && ((starts[i] - base) >> shift) < k) ++i;
    first[k] = static_cast<uint32_t>(i);
  }
}

size_t StartBuckets::upperBound(const std::vector<uint64_t>& starts, uint64_t pc) const {
  auto lo = starts.begin();
  auto hi = starts.end();
  if (!first.empty()) {
    if (pc < base) return 0;
    const uint64_t k = (pc - base) >> shift;
    if (k + 1 < first.size()) {
      // Starts in buckets before k are <= pc; starts from bucket k + 1 on are > pc.
      lo = starts.begin() + first[k];
      hi = starts.begin() + first[k + 1];
    } else {
      lo = starts.begin() + first.back();
    }
  }
  return static_cast<size_t>(std::upper_bound(lo, hi, pc) - starts.begin());
}

const LineInfo* UnitIndex::rowAt(uint64_t pc) const {
  size_t i = line_buckets.upperBound(line_lo, pc);
  if (i == 0) return nullptr;
  const LineInfo& r = line_info[i - 1];
  return r.line != kGapLine ? &r : nullptr;
}

int32_t UnitIndex::scopeAt(uint64_t pc) const {
  size_t i = segment_buckets.upperBound(segment_lo, pc);
  return i == 0 ? -1 : segment_scope[i - 1];
}

BuiltUnit UnitBuilder::build(Dwarf* dwarf, uint64_t cu_offset, const DebugSections& sections) {
  BuiltUnit b;
  Dwarf_Die cudie;
  if (::dwarf_offdie(dwarf, cu_offset, &cudie) == nullptr) return b;
  b.language = ::dwarf_srclang(&cudie);
  // Tables are built in the builder's buffers, whose capacity carries over
  // from unit to unit, and copied out at their exact size: vectors grown
  // by doubling in each unit would touch about twice the memory, every
  // page of it a fresh page fault.
  UnitIndex& stage = stage_;
  stage.line_lo.clear();
  stage.line_info.clear();
  if (unitLines(&cudie, sections, b.file_names, rows_)) {
    sortRows(rows_, scratch_);
    indexLines(rows_, b.file_names.size(), stage);
  }
  scopes_.clear();
  scopes_.file_count = b.file_names.size();
  ScopeSink sink(scopes_);
  if (!scanScopes(&cudie, sections, sink)) walkScopes(&cudie, sink);
  paint(scopes_.ranges, paint_, stage);
  UnitIndex& u = b.index;
  u.line_lo.assign(stage.line_lo.begin(), stage.line_lo.end());
  u.line_info.assign(stage.line_info.begin(), stage.line_info.end());
  u.segment_lo.assign(stage.segment_lo.begin(), stage.segment_lo.end());
  u.segment_scope.assign(stage.segment_scope.begin(), stage.segment_scope.end());
  u.line_buckets.build(u.line_lo);
  u.segment_buckets.build(u.segment_lo);
  u.scopes.assign(scopes_.scopes.begin(), scopes_.scopes.end());
  b.low_pcs.assign(scopes_.low_pcs.begin(), scopes_.low_pcs.end());
  return b;
}

}  // namespace strobe::symbolize
