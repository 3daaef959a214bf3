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
#include <unordered_map>
#include <vector>

#include "model/frames.hpp"
#include "model/profile.hpp"

namespace strobe::model {

// What a top-table row aggregates. kFunction keys frames by function
// identity (Profile::identity: clones count as their function); kLine by
// that and the line's file and number; kFile and kModule group frames by
// their line's source file or their location's module; kThread has one row
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
  std::string system_name;  // the symbol-table name without clone suffix (kFunction, kLine)
  std::string file;         // the function's source file (kLine: the line's); "" when unknown
  uint32_t line = 0;        // function start line (kFunction) or the line (kLine); 0 unknown
  std::string module;       // module display name
  std::string module_path;  // kModule: the module's path as mapped ("" for [unknown])
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

// The rows of a top table by function, line, file or module before they
// are sorted, and which rows each distinct stack credits, so that a caller
// can add up parts of the samples (strobe diff: blocks of time) without
// walking stacks again. rowsOf(stack): the rows a sample of that stack
// adds to, its self row (its leaf frame's) first, then every other row once
// (its total); empty for a stack no sample has or for the empty stack.
struct StackRows {
  std::vector<TopRow> rows;                     // weights over all the samples given
  std::vector<Frame> frames;                    // per row: the first frame it was made from
  std::unordered_map<StackId, uint32_t> index;  // stack -> its list (start)
  std::vector<uint32_t> start;                  // per list, then the end
  std::vector<uint32_t> row_ids;
  std::span<const uint32_t> rowsOf(StackId s) const;
};
// by: kFunction, kLine, kFile or kModule (others give no rows).
StackRows stackRows(const Profile& p, std::span<const Sample> samples, GroupBy by,
                    bool fold_inline = false);

// What a sample's weight counts for an event (Meta::event): "ns" for
// cpu-clock, task-clock and wall-clock (libstrobe's wall mode), and "" (an
// unknown, older recording); else
// "faults", "switches", "cycles", "instructions", "misses" or "events".
std::string_view eventUnit(std::string_view event);
inline bool isTimeEvent(std::string_view event) {
  return eventUnit(event) == "ns";
}

// Shares resting on fewer samples than this are uncertain: reports mark
// such rows (text, top, the HTML viewer) and say by how much.
inline constexpr uint64_t kFewSamples = 30;
// The samples a row's share rests on: its self samples, or its total ones
// when it has no self time.
inline uint64_t shareSamples(const TopRow& r) {
  return r.self_samples != 0 ? r.self_samples : r.total_samples;
}
// The standard error of a share of `part` samples out of `all`, in
// percentage points: the binomial 100 * sqrt(p * (1 - p) / n), with
// Agresti and Coull's adjustment (p = (part + 2) / (all + 4), n = all + 4)
// so that a share of 0% or 100% of a few samples is not called certain.
double shareStdErrorPct(uint64_t part, uint64_t all);
// Whether the shares of `samples` are estimates from sampling, uncertain
// when they rest on few samples: not when any is an off-CPU interval
// (record --off-cpu), whose time is measured, not sampled; such reports mark
// no row.
bool sharesAreSampled(std::span<const Sample> samples);

// "libfoo.so+0x1a2b": how an unresolved location is named.
std::string unresolvedName(const Profile& p, const Location& loc);

}  // namespace strobe::model
