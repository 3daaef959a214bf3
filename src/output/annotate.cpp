#include "output/annotate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "model/code.hpp"

namespace strobe::output {
namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string kib(uint64_t bytes) {
  return std::to_string(bytes >> 10) + " KiB";
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// Why a kept range has no bytes.
std::string noBytesReason(const model::Profile& p, const model::FunctionCode& c) {
  if (c.size > model::kMaxFunctionCodeBytes) {
    return "it is " + kib(c.size) + " long, more than the " + kib(model::kMaxFunctionCodeBytes) +
           " strobe keeps of one function";
  }
  if (p.str(p.modules()[c.module].path) == "[kernel.kallsyms]") {
    return "strobe keeps no kernel code";
  }
  return "the recording's " + std::to_string(model::kMaxCodeBytes >> 20) +
         " MiB of kept code went to hotter functions, or the file could not be read while "
         "recording";
}

struct Sampled {
  uint64_t address;  // as the ELF file states it
  uint64_t weight;
  uint64_t samples;
};

class Builder {
 public:
  Builder(const model::Profile& p, model::FunctionId f)
      : p_(p), f_(f), leaves_(model::leafWeights(p)) {}

  Annotation build() {
    const model::Function& fn = p_.functions()[f_];
    a_.function = f_;
    a_.name = p_.str(fn.name);
    a_.system_name = p_.str(fn.system_name);
    a_.file = p_.str(fn.file);
    for (const model::Sample& s : p_.samples()) {
      a_.total_weight += s.weight;
      a_.total_samples += 1;
    }
    for (const model::FunctionCode& c : p_.code()) {
      if (c.function == f_ && c.module < p_.modules().size()) addPart(c);
    }
    if (a_.parts.empty()) {
      a_.warnings.push_back(
          "the recording kept no code of " + a_.name +
          ": no symbol covered it, or its file could not be read while recording");
    }
    std::stable_sort(
        a_.parts.begin(), a_.parts.end(),
        [](const AnnotatedPart& x, const AnnotatedPart& y) { return x.weight > y.weight; });
    markJumps();
    markHottest();
    return std::move(a_);
  }

 private:
  void warn(const AnnotatedPart& part, const std::string& what) {
    a_.warnings.push_back(a_.name + " (" + part.module + " " + hex(part.address) + "): " + what);
  }

  // The samples whose leaf lies in c's range, by address.
  std::vector<Sampled> sampledIn(const model::FunctionCode& c) const {
    std::vector<Sampled> out;
    const std::vector<model::Location>& locs = p_.locations();
    for (size_t li = 0; li < locs.size(); ++li) {
      const model::Location& loc = locs[li];
      if (leaves_[li].samples == 0 || loc.module != c.module) continue;
      if (loc.offset < c.offset || loc.offset - c.offset >= c.size) continue;
      out.push_back(
          Sampled{c.address + (loc.offset - c.offset), leaves_[li].weight, leaves_[li].samples});
    }
    std::sort(out.begin(), out.end(),
              [](const Sampled& x, const Sampled& y) { return x.address < y.address; });
    return out;
  }

  // The kept bytes that can be decoded, after warning about what is wrong
  // with them.
  std::span<const uint8_t> usableBytes(const model::FunctionCode& c, const AnnotatedPart& part) {
    if (c.bytes.empty()) {
      warn(part, "no code bytes kept (" + noBytesReason(p_, c) + ")");
      return {};
    }
    size_t n = c.bytes.size();
    if (n > model::kMaxFunctionCodeBytes) {
      warn(part, "the kept code is corrupt: " + std::to_string(n) +
                     " bytes, more than strobe keeps of a function (" +
                     kib(model::kMaxFunctionCodeBytes) + "); not disassembled");
      return {};
    }
    if (n < c.size) {
      warn(part, "the kept code is truncated: " + std::to_string(n) + " of " +
                     std::to_string(c.size) + " bytes; the disassembly stops at " +
                     hex(c.address + n));
    } else if (n > c.size) {
      warn(part, "the kept code is corrupt: " + std::to_string(n) + " bytes for a " +
                     std::to_string(c.size) + "-byte function; the extra bytes are ignored");
      n = c.size;
    }
    if (c.checksum != model::codeChecksum(c.bytes)) {
      warn(part,
           "the kept code is corrupt: its checksum differs from the recorded one, so the "
           "disassembly may not be the code that ran");
    }
    return {c.bytes.data(), n};
  }

  const disasm::Disassembler* disassembler(disasm::Arch arch) {
    auto it = disassemblers_.find(arch);
    if (it == disassemblers_.end()) {
      auto d = disasm::Disassembler::open(arch);
      if (!d) {
        const Error& e = d.error();
        a_.warnings.push_back(e.describe() + (e.hint.empty() ? "" : ": " + e.hint));
        it = disassemblers_.emplace(arch, std::nullopt).first;
      } else {
        it = disassemblers_.emplace(arch, std::move(*d)).first;
      }
    }
    return it->second ? &*it->second : nullptr;
  }

  void addPart(const model::FunctionCode& c) {
    AnnotatedPart part;
    part.module_id = c.module;
    part.module = std::string(p_.moduleName(c.module));
    part.arch = c.arch;
    part.address = c.address;
    part.size = c.size;
    std::vector<Sampled> sampled = sampledIn(c);
    for (const Sampled& s : sampled) {
      part.weight += s.weight;
      a_.weight += s.weight;
      a_.samples += s.samples;
    }
    std::span<const uint8_t> bytes = usableBytes(c, part);
    std::optional<disasm::Arch> arch = disasm::parseArch(c.arch);
    if (!bytes.empty() && !arch) {
      warn(part, "cannot disassemble code of architecture '" + c.arch + "'");
    }
    if (!bytes.empty() && arch) {
      if (const disasm::Disassembler* d = disassembler(*arch)) {
        for (disasm::Instruction& i : d->decode(bytes, c.address)) {
          AnnotatedInstruction ai;
          ai.address = i.address;
          ai.size = i.size;
          ai.mnemonic = std::move(i.mnemonic);
          ai.operands = std::move(i.operands);
          ai.kind = i.kind;
          ai.target = i.target;
          part.instructions.push_back(std::move(ai));
        }
      }
    }
    attachLines(c, part);
    attachSamples(sampled, part);
    a_.parts.push_back(std::move(part));
  }

  void attachLines(const model::FunctionCode& c, AnnotatedPart& part) const {
    std::vector<model::CodeLine> lines;
    for (const model::CodeLine& l : c.lines) {
      if (l.offset < c.size && l.file < p_.strings().size()) lines.push_back(l);
    }
    std::stable_sort(
        lines.begin(), lines.end(),
        [](const model::CodeLine& x, const model::CodeLine& y) { return x.offset < y.offset; });
    for (AnnotatedInstruction& i : part.instructions) {
      uint64_t off = i.address - c.address;
      auto it = std::upper_bound(lines.begin(), lines.end(), off,
                                 [](uint64_t o, const model::CodeLine& l) { return o < l.offset; });
      if (it == lines.begin()) continue;
      --it;
      i.file = p_.str(it->file);
      i.line = it->line;
    }
  }

  void attachSamples(const std::vector<Sampled>& sampled, AnnotatedPart& part) {
    std::vector<AnnotatedInstruction>& ins = part.instructions;
    uint64_t outside = 0;
    uint64_t inside = 0;
    for (const Sampled& s : sampled) {
      auto it =
          std::upper_bound(ins.begin(), ins.end(), s.address,
                           [](uint64_t a, const AnnotatedInstruction& i) { return a < i.address; });
      if (it == ins.begin() || s.address - std::prev(it)->address >= std::prev(it)->size) {
        outside += s.samples;
        continue;
      }
      --it;
      if (it->address != s.address) inside += s.samples;
      it->weight += s.weight;
      it->samples += s.samples;
    }
    if (outside > 0 && !ins.empty()) {
      warn(part, std::to_string(outside) +
                     " samples fell past the kept code and are counted for no instruction");
    }
    if (inside > 0) {
      warn(part, std::to_string(inside) +
                     " samples fell inside an instruction (the disassembly is out of step, or "
                     "the code changed): counted for the instruction that holds them");
    }
  }

  // "hot+0x10" for an address in a kept range of module `module` (by
  // ranges_, sorted by module and address), "" when none holds it.
  std::string nameOf(model::ModuleId module, uint64_t address) const {
    auto it = std::upper_bound(
        ranges_.begin(), ranges_.end(), std::pair{module, address},
        [](const std::pair<model::ModuleId, uint64_t>& k, const model::FunctionCode* c) {
          return k.first != c->module ? k.first < c->module : k.second < c->address;
        });
    for (int steps = 0; it != ranges_.begin() && steps < 4; ++steps) {
      const model::FunctionCode& c = **--it;
      if (c.module != module) break;
      if (address - c.address >= c.size) continue;
      if (c.function >= p_.functions().size()) return {};
      std::string_view name = withoutParameters(p_.str(p_.functions()[c.function].name));
      return std::string(name) + "+" + hex(address - c.address);
    }
    return {};
  }

  void markJumps() {
    for (const model::FunctionCode& c : p_.code()) ranges_.push_back(&c);
    std::sort(ranges_.begin(), ranges_.end(),
              [](const model::FunctionCode* x, const model::FunctionCode* y) {
                return x->module != y->module ? x->module < y->module : x->address < y->address;
              });
    std::unordered_map<uint64_t, AnnotatedInstruction*> at;
    for (AnnotatedPart& part : a_.parts) {
      for (AnnotatedInstruction& i : part.instructions) at.emplace(i.address, &i);
    }
    for (AnnotatedPart& part : a_.parts) {
      for (AnnotatedInstruction& i : part.instructions) {
        if (!i.target) continue;
        i.target_name = nameOf(part.module_id, *i.target);
        if (i.kind != disasm::Kind::kJump && i.kind != disasm::Kind::kBranch) continue;
        auto it = at.find(*i.target);
        if (it != at.end()) it->second->jump_target = true;
      }
    }
  }

  // The hottest instructions, hottest first, until they hold half the
  // function's weight (at most 5).
  void markHottest() {
    std::vector<AnnotatedInstruction*> all;
    for (AnnotatedPart& part : a_.parts) {
      for (AnnotatedInstruction& i : part.instructions) {
        if (i.weight > 0) all.push_back(&i);
      }
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto* x, const auto* y) { return x->weight > y->weight; });
    uint64_t sum = 0;
    for (size_t k = 0; k < all.size() && k < 5 && sum * 2 < a_.weight; ++k) {
      all[k]->hottest = true;
      sum += all[k]->weight;
    }
  }

  const model::Profile& p_;
  const model::FunctionId f_;
  const std::vector<model::LeafWeight> leaves_;
  std::map<disasm::Arch, std::optional<disasm::Disassembler>> disassemblers_;
  std::vector<const model::FunctionCode*> ranges_;  // every kept range, by module and address
  Annotation a_;
};

}  // namespace

std::string_view withoutParameters(std::string_view name) {
  std::string_view s = name;
  for (std::string_view suffix : {" const", " volatile", " &&", " &"}) {
    while (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
      s.remove_suffix(suffix.size());
    }
  }
  if (s.empty() || s.back() != ')') return name;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i == 0 ? name : s.substr(0, i);
  }
  return name;
}

std::string_view unqualified(std::string_view name) {
  int depth =
      0;  // inside <...> or (...): "a::b<c::d>::e" -> "e", "(anonymous namespace)::f" -> "f"
  for (size_t i = name.size(); i-- > 0;) {
    char c = name[i];
    if (c == '>' || c == ')') ++depth;
    if ((c == '<' || c == '(') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i > 0 && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

std::vector<AnnotateCandidate> matchFunctions(const model::Profile& p, std::string_view query) {
  struct Info {
    uint64_t weight = 0;
    uint64_t best = 0;
    model::ModuleId module = model::kNone;
    bool has_code = false;
    std::map<model::FunctionId, uint64_t> into;
  };
  std::unordered_map<model::FunctionId, Info> info;
  const std::vector<model::LeafWeight> leaves = model::leafWeights(p);
  const std::vector<model::Location>& locs = p.locations();
  for (size_t li = 0; li < locs.size(); ++li) {
    const model::Location& loc = locs[li];
    const uint64_t w = leaves[li].weight;
    if (leaves[li].samples == 0 || loc.lines.empty()) continue;
    const model::FunctionId outer = loc.lines.back().function;
    if (outer != model::kNone) {
      Info& in = info[outer];
      in.weight += w;
      if (in.module == model::kNone || w > in.best) {
        in.best = w;
        in.module = loc.module;
      }
    }
    for (size_t d = 0; d + 1 < loc.lines.size(); ++d) {
      model::FunctionId fn = loc.lines[d].function;
      if (fn == model::kNone || fn == outer || outer == model::kNone) continue;
      Info& in = info[fn];
      in.into[outer] += w;
      if (in.module == model::kNone) in.module = loc.module;
    }
  }
  for (const model::FunctionCode& c : p.code()) {
    if (c.function == model::kNone || c.function >= p.functions().size()) continue;
    Info& in = info[c.function];
    in.has_code = true;
    if (in.module == model::kNone) in.module = c.module;
  }

  auto candidate = [&](model::FunctionId id, const Info& in) {
    AnnotateCandidate c;
    c.function = id;
    c.name = p.str(p.functions()[id].name);
    c.module = std::string(p.moduleName(in.module));
    c.weight = in.weight;
    c.has_code = in.has_code;
    if (in.weight == 0 && !in.has_code) {
      std::vector<std::pair<uint64_t, model::FunctionId>> into;
      for (const auto& [f, w] : in.into) into.emplace_back(w, f);
      std::stable_sort(into.begin(), into.end(),
                       [](const auto& x, const auto& y) { return x.first > y.first; });
      for (const auto& [w, f] : into) c.inlined_into.push_back(f);
    }
    return c;
  };
  std::vector<AnnotateCandidate> exact, prefix;
  for (const auto& [id, in] : info) {
    const model::Function& fn = p.functions()[id];
    const std::string& name = p.str(fn.name);
    const std::string& system = p.str(fn.system_name);
    const std::string_view base = withoutParameters(name);
    if (name == query || system == query || base == query || unqualified(base) == query) {
      exact.push_back(candidate(id, in));
    } else if (!query.empty() && (startsWith(name, query) || startsWith(system, query))) {
      prefix.push_back(candidate(id, in));
    }
  }
  std::vector<AnnotateCandidate>& out = exact.empty() ? prefix : exact;
  std::sort(out.begin(), out.end(), [](const AnnotateCandidate& x, const AnnotateCandidate& y) {
    if (x.weight != y.weight) return x.weight > y.weight;
    if (x.name != y.name) return x.name < y.name;
    return x.function < y.function;
  });
  return std::move(out);
}

Annotation annotate(const model::Profile& p, model::FunctionId function) {
  if (function >= p.functions().size()) {
    Annotation a;
    a.warnings.push_back("no function " + std::to_string(function) + " in the recording");
    return a;
  }
  return Builder(p, function).build();
}

}  // namespace strobe::output
