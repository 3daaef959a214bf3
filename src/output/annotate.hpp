// Annotation: a sampled function's kept code (model/code.hpp) disassembled,
// each instruction with its share of the function's self samples, its
// source line and the jumps that land on it. The data behind `strobe
// annotate` (annotate_writer.hpp prints it); a viewer can call annotate()
// and render the same.
//
// Which samples: those whose leaf frame (the sampled instruction) lies in
// one of the function's kept ranges, whatever function the inline chain
// names there (a loop inlined into the function counts for it). Shares are
// of those samples' weight.
//
// The kept bytes are distrusted: bytes fewer than the range (truncated),
// more than it, or whose checksum differs from the recorded one (corrupt)
// give a warning and the disassembly of what there is; an unknown
// architecture, or no bytes at all, a warning and no instructions. Samples
// that fall past the decoded bytes or inside an instruction are counted in a
// warning, never dropped from the function's total.
//
// Thread safety: pure functions over a const Profile (each call opens its
// own disassembler). No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "disasm/disassembler.hpp"
#include "model/profile.hpp"

namespace strobe::output {

// A function `strobe annotate FUNCTION` can name: one that holds self
// samples or kept code, or one inlined into such a function.
struct AnnotateCandidate {
  model::FunctionId function = model::kNone;
  std::string name;       // demangled
  std::string module;     // of its hottest sample
  uint64_t weight = 0;    // self weight in its own code (0 when only inlined)
  bool has_code = false;  // the recording kept code for it
  // When it has no self samples of its own: the functions it was inlined
  // into at sampled addresses, hottest first.
  std::vector<model::FunctionId> inlined_into;
};

// The candidates whose name (demangled or symbol) is `query`, or whose
// demangled name without its parameter list is (`hot` for `hot(int)`), or
// that without its scopes (`mix` for `(anonymous namespace)::mix(int)`); if
// none, those whose name starts with `query`. Hottest first. Several
// distinct names mean the query is ambiguous: the caller lists them.
std::vector<AnnotateCandidate> matchFunctions(const model::Profile& p, std::string_view query);

struct AnnotatedInstruction {
  uint64_t address = 0;  // as the ELF file states it (as objdump and perf annotate show)
  uint32_t size = 0;
  std::string mnemonic;
  std::string operands;
  disasm::Kind kind = disasm::Kind::kOther;
  std::optional<uint64_t> target;  // direct jump, branch or call destination
  std::string target_name;         // "hot+0x10" when a kept function holds the target
  bool jump_target = false;        // a jump or branch of this function lands here
  uint64_t weight = 0;             // of the samples at this instruction
  uint64_t samples = 0;
  bool hottest = false;  // among the few hottest that hold half the function's weight
  std::string file;      // source file of its line-table row ("" unknown)
  uint32_t line = 0;     // 0: unknown
};

// One kept range of the function (a function split into hot and .cold
// parts has two).
struct AnnotatedPart {
  model::ModuleId module_id = model::kNone;
  std::string module;    // display name
  std::string arch;      // "x86_64", "aarch64" ("" unknown)
  uint64_t address = 0;  // first byte, as the ELF file states it
  uint64_t size = 0;
  uint64_t weight = 0;  // self weight in this part
  std::vector<AnnotatedInstruction> instructions;
};

struct Annotation {
  model::FunctionId function = model::kNone;
  std::string name;         // demangled
  std::string system_name;  // as in the symbol table
  std::string file;         // declaring source file ("" unknown)
  uint64_t weight = 0;      // self weight of the function (all parts)
  uint64_t samples = 0;
  uint64_t total_weight = 0;  // of the whole profile
  uint64_t total_samples = 0;
  std::vector<AnnotatedPart> parts;   // hottest first
  std::vector<std::string> warnings;  // one line each, for stderr
};

// The annotation of `function`. No kept code gives an Annotation with no
// parts and a warning saying why.
Annotation annotate(const model::Profile& p, model::FunctionId function);

// `name` without its trailing parameter list (and cv-qualifiers):
// "ns::f(int) const" -> "ns::f"; names without one are returned whole.
std::string_view withoutParameters(std::string_view name);
// `name` (without parameters) without its scopes: "a::b<c::d>::e" -> "e".
std::string_view unqualified(std::string_view name);

}  // namespace strobe::output
