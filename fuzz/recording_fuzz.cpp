// The recording reader: a file's bytes, written to a file of this process's
// own, read back by store::readProfile into a Profile (which validates
// every row it keeps). A recording is often someone else's file.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "model/profile.hpp"
#include "store/store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One file for every input, in a directory of this process's own (SQLite
  // finds no journal of another's beside it).
  static const std::string path = strobe::fuzz::privatePath("input.db");
  strobe::fuzz::writeFile(path, {data, size});
  auto read = strobe::store::readProfile(path);
  if (!read) return 0;
  // What the reader accepts, every report can walk: each id it kept names
  // an existing entry (or is kNone where the model allows it).
  using namespace strobe::model;
  const Profile& p = *read;
  auto check = [](bool ok) {
    if (!ok) std::abort();
  };
  const size_t strings = p.strings().size();
  for (const Module& m : p.modules()) check(m.path < strings && m.build_id < strings);
  for (const Function& f : p.functions()) {
    check(f.name < strings && f.system_name < strings && f.file < strings);
  }
  for (const Location& l : p.locations()) {
    check(l.module == kNone || l.module < p.modules().size());
    for (const Line& line : l.lines) check(line.function < p.functions().size());
  }
  for (const StackNode& n : p.stacks()) {
    check(n.parent == kNone || n.parent < p.stacks().size());
    check(n.location < p.locations().size());
  }
  for (const Sample& s : p.samples()) {
    check(s.stack == kNone || s.stack < p.stacks().size());
    check(static_cast<uint8_t>(s.stack_end) <= kMaxStackEnd);
  }
  return 0;
}
