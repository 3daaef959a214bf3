// Callers and callees of a function: for every sample whose stack holds the
// function, the frame just above it (its caller, "(root)" at the top) or
// just below it (its callee, "(self)" when it is the leaf). Each neighbor is
// credited once per sample, so shares never exceed 100% of the function.
//
// Functions and neighbors are keyed by function identity (frames.hpp), never
// by name: two functions that share a display name get a table each, and a
// compiler clone is the function it came from (foo calling foo.part.0 is
// not foo calling itself). `func` names functions by their display name:
// every function named exactly so, else every function whose name contains
// it; one table each, as `pprof -peek` prints one block per match.
// Thread safety: pure over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

// A function (or unresolved location) as the tables show it.
struct NeighborName {
  std::string name;    // display name; "(root)" / "(self)" for the ends of a stack
  std::string file;    // the function's source file, "" when unknown
  uint32_t line = 0;   // its start line, 0 when unknown
  std::string module;  // module display name, "" for (root) / (self)
};

struct Neighbor {
  NeighborName who;
  uint64_t weight = 0;
  uint64_t samples = 0;
};

struct NeighborTable {
  NeighborName function;  // the function the table is about
  uint64_t weight = 0;    // samples with it on the stack
  uint64_t samples = 0;
  std::vector<Neighbor> rows;  // heaviest first
};

struct NeighborTables {
  bool exact = false;                 // `func` was a whole name (else: a part of names)
  std::vector<NeighborTable> tables;  // one per matching function, heaviest first
};

// tables is empty when no function of the profile matches `func`.
NeighborTables neighbors(const Profile& p, std::string_view func, bool callees, bool fold_inline);

}  // namespace strobe::model
