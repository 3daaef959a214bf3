#include "symbolize/unit_index.hpp"

#include "symbolize/die_attrs.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace strobe::symbolize {
namespace {

const char* attrString(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  return ::dwarf_formstring(::dwarf_attr_integrate(die, name, &attr));
}

void buildLines(Dwarf_Die* cudie, Dwarf_Files* unit_files, std::vector<LineRow>& rows,
                BuiltUnit& b) {
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (::dwarf_getsrclines(cudie, &lines, &n) != 0) return;
  rows.clear();
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = ::dwarf_onesrcline(lines, i);
    Dwarf_Addr addr = 0;
    if (l == nullptr || ::dwarf_lineaddr(l, &addr) != 0) continue;
    LineRow r{addr, static_cast<uint32_t>(i), 0, kNoFile, 0, false};
    int line = 0;
    if (::dwarf_lineno(l, &line) == 0 && line > 0) r.line = static_cast<uint32_t>(line);
    ::dwarf_lineendsequence(l, &r.end);
    unsigned disc = 0;
    if (::dwarf_linediscriminator(l, &disc) == 0) r.discriminator = disc;
    Dwarf_Files* f = nullptr;
    size_t idx = 0;
    if (::dwarf_line_file(l, &f, &idx) == 0 && f == unit_files && idx < b.file_names.size()) {
      r.file = static_cast<uint32_t>(idx);
    }
    rows.push_back(r);
  }
  // libdw hands the rows sorted by address already; sort only when not.
  auto before = [](const LineRow& x, const LineRow& y) {
    return x.addr != y.addr ? x.addr < y.addr : x.order < y.order;
  };
  if (!std::is_sorted(rows.begin(), rows.end(), before))
    std::sort(rows.begin(), rows.end(), before);
  // Per address, the last row that does not end a sequence covers up to
  // the next address; an address with only sequence ends starts a gap.
  UnitIndex& u = b.index;
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
      u.line_info.push_back(LineInfo{pick->line, pick->file, pick->discriminator});
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

// The attributes walk() reads from a function scope's DIE.
enum ScopeSlot { kLowPc, kHighPc, kRanges, kCallFile, kCallLine };
using ScopeAttrs =
    DieAttrs<DW_AT_low_pc, DW_AT_high_pc, DW_AT_ranges, DW_AT_call_file, DW_AT_call_line>;

// [low_pc, high_pc) as dwarf_lowpc / dwarf_highpc read them (high_pc an
// address or an offset from low_pc); nullopt in every other case, which
// dwarf_ranges then handles (DW_AT_ranges, unusual forms, errors).
std::optional<std::pair<uint64_t, uint64_t>> lowHigh(ScopeAttrs& at) {
  if (!at.has[kLowPc] || !at.has[kHighPc]) return std::nullopt;
  Dwarf_Addr lo = 0;
  if (::dwarf_formaddr(&at.attr[kLowPc], &lo) != 0) return std::nullopt;
  Dwarf_Attribute& high = at.attr[kHighPc];
  switch (::dwarf_whatform(&high)) {
    case DW_FORM_addr: {
      Dwarf_Addr hi = 0;
      if (::dwarf_formaddr(&high, &hi) != 0) return std::nullopt;
      return std::make_pair(lo, hi);
    }
    case DW_FORM_data1:
    case DW_FORM_data2:
    case DW_FORM_data4:
    case DW_FORM_data8:
    case DW_FORM_udata: {
      Dwarf_Word len = 0;
      if (::dwarf_formudata(&high, &len) != 0) return std::nullopt;
      return std::make_pair(lo, lo + len);
    }
    default:
      return std::nullopt;
  }
}

struct CodeRange {
  uint64_t lo, hi;
  int32_t scope;
};

// Collects the code ranges of function scopes under `parent` in DIE order
// (parents before children).
void walk(Dwarf_Die* parent, int32_t parent_scope, int depth, BuiltUnit& b,
          std::vector<CodeRange>& ranges) {
  if (depth > kMaxDieDepth) return;
  UnitIndex& u = b.index;
  Dwarf_Die child;
  if (::dwarf_child(parent, &child) != 0) return;
  do {
    int tag = ::dwarf_tag(&child);
    switch (tag) {
      case DW_TAG_subprogram:
      case DW_TAG_inlined_subroutine:
      case DW_TAG_entry_point: {
        // One pass over the DIE's attributes. Declarations and abstract
        // instances have neither low_pc nor ranges: skipped.
        ScopeAttrs at;
        if (!at.read(&child)) break;
        if (!at.has[kLowPc] && !at.has[kRanges]) break;
        int32_t scope = -1;
        std::optional<uint64_t> first_lo;  // the scope's low_pc, even of an empty range
        auto add = [&](uint64_t lo, uint64_t hi) {
          if (!first_lo) first_lo = lo;
          if (lo >= hi) return;
          if (scope < 0) {
            scope = static_cast<int32_t>(u.scopes.size());
            Scope s;
            s.die = ::dwarf_dieoffset(&child);
            s.id = static_cast<uint32_t>(scope);
            s.parent = parent_scope;
            s.inlined = tag == DW_TAG_inlined_subroutine;
            if (s.inlined) {
              Dwarf_Word v = 0;
              if (at.has[kCallFile] && ::dwarf_formudata(&at.attr[kCallFile], &v) == 0 &&
                  v < b.file_names.size()) {
                s.call_file = static_cast<uint32_t>(v);
              }
              if (at.has[kCallLine] && ::dwarf_formudata(&at.attr[kCallLine], &v) == 0) {
                s.call_line = static_cast<uint32_t>(v);
              }
            }
            u.scopes.push_back(s);
            b.low_pcs.push_back(*first_lo);
          }
          ranges.push_back(CodeRange{lo, hi, scope});
        };
        if (std::optional<std::pair<uint64_t, uint64_t>> pc = lowHigh(at)) {
          add(pc->first, pc->second);  // what dwarf_ranges gives for low/high_pc
        } else {
          Dwarf_Addr base = 0;
          Dwarf_Addr lo = 0;
          Dwarf_Addr hi = 0;
          ptrdiff_t off = 0;
          while ((off = ::dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) add(lo, hi);
        }
        // Without code (declarations, abstract instances) nothing below has any.
        if (scope >= 0 && ::dwarf_haschildren(&child) > 0) {
          walk(&child, scope, depth + 1, b, ranges);
        }
        break;
      }
      // GCC and Clang put the code of member functions in out-of-line
      // DIEs (DW_AT_specification) at namespace level, never inside the
      // class, so types are not entered: they hold most of the DIEs.
      case DW_TAG_lexical_block:
      case DW_TAG_try_block:
      case DW_TAG_catch_block:
      case DW_TAG_namespace:
      case DW_TAG_module:
        if (::dwarf_haschildren(&child) > 0) walk(&child, parent_scope, depth + 1, b, ranges);
        break;
      default:
        break;
    }
  } while (::dwarf_siblingof(&child, &child) == 0);
}

// Paints the scopes' code ranges so the innermost scope owns each address:
// a later range (in DIE order) paints over earlier ones. At each boundary
// the owner is the latest range that covers it (a heap of started ranges
// by DIE order; ranges that ended leave it when they reach the top).
void paint(const std::vector<CodeRange>& ranges, UnitIndex& u) {
  std::vector<uint64_t> bounds;
  bounds.reserve(ranges.size() * 2);
  for (const CodeRange& r : ranges) {
    bounds.push_back(r.lo);
    bounds.push_back(r.hi);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<uint32_t> by_lo(ranges.size());
  for (uint32_t i = 0; i < by_lo.size(); ++i) by_lo[i] = i;
  std::stable_sort(by_lo.begin(), by_lo.end(),
                   [&](uint32_t a, uint32_t b) { return ranges[a].lo < ranges[b].lo; });
  std::vector<uint32_t> heap;  // max-heap of range indexes
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

const LineInfo* UnitIndex::rowAt(uint64_t pc) const {
  auto it = std::upper_bound(line_lo.begin(), line_lo.end(), pc);
  if (it == line_lo.begin()) return nullptr;
  const LineInfo& r = line_info[static_cast<size_t>(it - line_lo.begin()) - 1];
  return r.line != kGapLine ? &r : nullptr;
}

int32_t UnitIndex::scopeAt(uint64_t pc) const {
  auto it = std::upper_bound(segment_lo.begin(), segment_lo.end(), pc);
  if (it == segment_lo.begin()) return -1;
  return segment_scope[static_cast<size_t>(it - segment_lo.begin()) - 1];
}

BuiltUnit UnitBuilder::build(Dwarf* dwarf, uint64_t cu_offset) {
  BuiltUnit b;
  Dwarf_Die cudie;
  if (::dwarf_offdie(dwarf, cu_offset, &cudie) == nullptr) return b;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (::dwarf_getsrcfiles(&cudie, &files, &nfiles) == 0) {
    const char* dir = attrString(&cudie, DW_AT_comp_dir);
    b.file_names.reserve(nfiles);
    for (size_t i = 0; i < nfiles; ++i) {
      b.file_names.push_back(joinDir(dir, ::dwarf_filesrc(files, i, nullptr, nullptr)));
    }
  }
  buildLines(&cudie, files, rows_, b);
  std::vector<CodeRange> ranges;
  walk(&cudie, -1, 0, b, ranges);
  paint(ranges, b.index);
  return b;
}

}  // namespace strobe::symbolize
