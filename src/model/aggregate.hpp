// Aggregations over a Profile that every report needs: the top table (self
// and total weight per function or per source line) and profile totals.
//
// A "frame" is one line of a location: a location with an inline chain
// contributes several frames, innermost first. A location that was not
// symbolized is one frame named module+0xOFFSET. Self weight goes to the
// leaf frame of each sample; total weight goes once per sample to every
// distinct key on its stack (recursion is not double-counted).
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

// What a top-table row aggregates. kFile and kModule group frames by their
// function's source file or their location's module; kThread has one row
// per thread (self == total == the thread's weight); kProcess one row per
// process (the pid of each sample's thread), named "name (pid)" after its
// main thread (else any of its threads). kAddress has one row per sampled
// address (model/address_table.hpp; per aligned bucket there).
enum class GroupBy { kFunction, kLine, kFile, kModule, kThread, kProcess, kAddress };

// "function", "line", "file", "module", "thread", "process", "address" (the --by
// values); parseGroupBy is the inverse, nullopt for any other name.
std::string_view groupByName(GroupBy by);
std::optional<GroupBy> parseGroupBy(std::string_view name);

struct TopRow {
  // The row's name: the demangled function (module+0xOFFSET when unresolved),
  // the file (kFile), the module (kModule) or "name (tid)" (kThread).
  std::string function;
  std::string system_name;  // the symbol-table name (kFunction, kLine); "" otherwise
  std::string file;         // source file ("" when unknown)
  uint32_t line = 0;        // function start line (kFunction) or the line (kLine); 0 unknown
  std::string module;       // module display name
  uint64_t self = 0;        // summed weight where this is the leaf frame
  uint64_t total = 0;       // summed weight of samples with this key on the stack
  uint64_t self_samples = 0;
  uint64_t total_samples = 0;
  // kAddress: the address (bucket start) as module+0xOFFSET; `function` is
  // then function+0xOFFSET, `file`/`line` the innermost line there.
  std::string address;
};

struct Totals {
  uint64_t samples = 0;
  uint64_t weight = 0;
  size_t threads = 0;  // threads with at least one sample
};

Totals totals(const Profile& p);
// The same over some of p's samples (a time window, as `top --window` keeps).
Totals totals(std::span<const Sample> samples);

// Rows sorted by self weight, then total, then name; all keys (callers trim).
// fold_inline: inlined frames count as their caller (see frames.hpp).
std::vector<TopRow> topTable(const Profile& p, GroupBy by, bool fold_inline = false);
// The same over some of p's samples (stacks, threads and names from p).
std::vector<TopRow> topTable(const Profile& p, std::span<const Sample> samples, GroupBy by,
                             bool fold_inline = false);

// What a sample's weight counts for an event (Meta::event): "ns" for
// cpu-clock, task-clock and wall-clock (libstrobe's wall mode), and "" (an
// unknown, older recording); else
// "faults", "switches", "cycles", "instructions", "misses" or "events".
std::string_view eventUnit(std::string_view event);
inline bool isTimeEvent(std::string_view event) {
  return eventUnit(event) == "ns";
}

// "libfoo.so+0x1a2b": how an unresolved location is named.
std::string unresolvedName(const Profile& p, const Location& loc);

}  // namespace strobe::model
