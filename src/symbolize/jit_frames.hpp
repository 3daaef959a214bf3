// JitFrames: names the frames of a Profile that lie in memory without a
// file, from the profile's own JIT table (model/jit_code.hpp), so the same
// recording names them the same way wherever it is read.
//
// apply() does two things:
//  1. Frames of anonymous code (model::isAnonymousCode: "//anon", memfd, no
//     mapping) that a JitCode held at the sample's time (JitTable) move to
//     a "[JIT]" location of that JitCode: the sample's stack is interned
//     again with it. A location is one address, but one address can hold
//     several functions over a recording; the "[JIT]" location tells them
//     apart. Stack nodes left without samples stay in the trie, unused.
//  2. Locations not yet named: "[JIT]" ones get their JitCode's name (C++
//     names demangled) and line; anonymous ones in a region of anonymous
//     executable memory become one function per region, "[anon]+0xSTART",
//     so unnamed code is counted once per region, not per address.
// Samples are moved once, from where the last call stopped (live views call
// it on a growing profile).
// Thread safety: none; one thread, with the Profile it is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/profile.hpp"
#include "symbolize/jit_table.hpp"

namespace strobe::symbolize {

class JitFrames {
 public:
  void apply(model::Profile& p);

 private:
  void moveSamples(model::Profile& p);
  void nameLocations(model::Profile& p);
  bool isAnonymous(const model::Profile& p, model::LocationId id);
  bool stackHasAnonymous(const model::Profile& p, model::StackId leaf);
  model::LocationId jitLocation(model::Profile& p, model::JitCodeId code, uint64_t address);

  JitTable table_;
  size_t next_sample_ = 0;
  size_t next_location_ = 0;           // locations below were offered a name
  std::vector<int8_t> anon_location_;  // by LocationId: -1 unknown, 0 no, 1 yes
  std::vector<int8_t> anon_stack_;     // by StackId: an anonymous frame from here to the root
  std::unordered_map<uint64_t, std::vector<model::JitCodeId>> candidates_;  // (pid, location)
  model::ModuleId jit_module_ = model::kNone;
  std::vector<model::StackId> walk_;  // scratch for stackHasAnonymous
};

}  // namespace strobe::symbolize
