// The differential call tree behind strobe diff's flame graph, compare page
// and pprof profile: the call trees of both sides merged, frame by frame
// (model/diff_key.hpp's function key, and whether the frame is inlined),
// from the root. Each node has both sides' self and total (mean per run, in
// the diff's unit, as model/diff.hpp's rows) and a verdict on its total,
// tested like the rows' (its own false discovery family): a node whose base
// and new totals together stay below min-change is `same` untested.
//
// width: what a flame graph draws: the new side's self plus its children's
// widths, a node the new side lacks at its base total, so that the new run's
// shape shows with the work that vanished since the base still in sight.
// Children are ordered by width, widest first (then by name).
//
// Thread safety: pure over const Profiles. No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/diff.hpp"

namespace strobe::model {

struct DiffFrame {
  std::string name;         // as reports name it (module+0xOFFSET when unresolved)
  std::string system_name;  // the symbol, without clone suffix; "" when unresolved
  std::string module;
  std::string file;   // the function's source file, "" when unknown
  uint32_t line = 0;  // the function's first line, 0 when unknown
  bool inlined = false;
  bool unresolved = false;
  uint32_t function = 0;  // frames of one function (inlined or not) share it
};

struct DiffNode {
  uint32_t parent = kNone;  // kNone for the root
  uint32_t frame = kNone;   // kNone for the root ("all")
  uint32_t depth = 0;
  double base_self = 0;
  double base_total = 0;
  double next_self = 0;
  double next_total = 0;
  double width = 0;
  double p = 1;  // of the total's change; 1 when not tested
  bool tested = false;
  Verdict verdict = Verdict::kSame;
};

struct DiffTree {
  std::vector<DiffFrame> frames;
  // Per DiffFrame::function: its key (diff_key.hpp, kFunction), which is
  // the key of its row in a diff by function.
  std::vector<std::string> function_keys;
  std::vector<DiffNode> nodes;  // nodes[0]: the root; parents before children
  size_t tests = 0;
  // The children of node x: child_list[child_start[x] .. child_start[x + 1]).
  std::vector<uint32_t> child_start;
  std::vector<uint32_t> child_list;
  std::span<const uint32_t> children(uint32_t x) const {
    return std::span<const uint32_t>(child_list)
        .subspan(child_start[x], child_start[x + 1] - child_start[x]);
  }
};

// `diff`: diffProfiles' result for the same runs and options (its
// min_change and scale are used).
Result<DiffTree> diffTree(std::span<const DiffRun> base, std::span<const DiffRun> next,
                          const DiffOptions& opt, const ProfileDiff& diff);

}  // namespace strobe::model
