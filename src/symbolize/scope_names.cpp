#include "symbolize/scope_names.hpp"

#include <dwarf.h>

#include <algorithm>
#include <string_view>

#include "symbolize/demangle.hpp"
#include "symbolize/die_reader.hpp"
#include "symbolize/unit_index.hpp"

namespace strobe::symbolize {
namespace {

// Scopes, types and template arguments followed at most, in all (real names
// nest a dozen deep; hostile DWARF can nest without end).
constexpr int kMaxNameDepth = 48;
// DW_AT_abstract_origin / DW_AT_specification links followed (as
// dwarf_attr_integrate).
constexpr int kMaxChain = 16;

// DIEs that enclose names: their extents are kept.
bool isNamingScope(int tag) {
  switch (tag) {
    case DW_TAG_namespace:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
    case DW_TAG_enumeration_type:
    case DW_TAG_subprogram:
    case DW_TAG_module:
      return true;
    default:
      return false;
  }
}

// DIEs whose children may hold naming scopes (a closure type sits in its
// function, perhaps in a lexical block); the walk steps over every other
// subtree (parameters, variables, call sites, enumerators, ...).
bool mayHoldScopes(int tag) {
  return (isNamingScope(tag) && tag != DW_TAG_enumeration_type) || tag == DW_TAG_lexical_block ||
         tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit || tag == DW_TAG_type_unit;
}

bool hasAttribute(const Abbrev& a, unsigned name) {
  for (const Abbrev::Attr& at : a.attrs) {
    if (at.name == name) return true;
  }
  return false;
}

std::string join(const std::string& prefix, std::string_view name) {
  if (prefix.empty()) return std::string(name);
  std::string out = prefix;
  out += "::";
  out += name;
  return out;
}

// GCC's names of the base types, as the demangler prints them.
std::string_view baseTypeName(std::string_view gcc) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"long int", "long"},
      {"long unsigned int", "unsigned long"},
      {"short int", "short"},
      {"short unsigned int", "unsigned short"},
      {"long long int", "long long"},
      {"long long unsigned int", "unsigned long long"},
      {"__int128 unsigned", "unsigned __int128"},
      {"_Bool", "bool"},
  };
  for (const auto& [from, to] : kNames) {
    if (gcc == from) return to;
  }
  return gcc;
}

bool referenced(Dwarf_Die* die, unsigned attr, Dwarf_Die* out) {
  Dwarf_Attribute a;
  return ::dwarf_attr(die, attr, &a) != nullptr && ::dwarf_formref_die(&a, out) != nullptr;
}

// Walks the children of a DIE (p: at the first child) into `t`.
class TreeWalk {
 public:
  explicit TreeWalk(UnitReader& r) : r_(r) {}
  template <typename Tree>
  bool children(const uint8_t*& p, int32_t parent, uint64_t parent_offset, int depth, Tree& t) {
    if (depth > kMaxDieDepth) return r_.skipChildren(p);
    while (true) {
      if (p >= r_.end()) return false;
      const uint8_t* at = p;
      const Abbrev* a = r_.abbrev(p);
      if (a == nullptr) return !r_.failed();  // the null entry ends the siblings
      const uint8_t* values = p;
      if (!r_.skipValues(*a, p)) return false;
      const uint64_t off = r_.offsetOf(at);
      if ((a->tag == DW_TAG_structure_type || a->tag == DW_TAG_class_type) &&
          !hasAttribute(*a, DW_AT_name) && !hasAttribute(*a, DW_AT_declaration)) {
        t.unnamed_types[parent_offset].push_back(off);
      }
      if (!a->children) continue;
      if (!mayHoldScopes(a->tag)) {
        if (const uint8_t* to = r_.siblingOf(*a, values, p)) {
          p = to;
        } else if (!r_.skipChildren(p)) {
          return false;
        }
        continue;
      }
      if (isNamingScope(a->tag)) {
        const auto me = static_cast<int32_t>(t.containers.size());
        t.containers.push_back({off, 0, parent});
        if (!children(p, me, off, depth + 1, t)) return false;
        t.containers[me].end = r_.offsetOf(p);
      } else if (!children(p, parent, parent_offset, depth + 1, t)) {
        return false;
      }
    }
  }

 private:
  UnitReader& r_;
};

}  // namespace

ScopeNames::UnitTree& ScopeNames::treeOf(Dwarf_Die* die) {
  static UnitTree kUnread;
  Dwarf_Die cudie;
  if (die->cu == nullptr || ::dwarf_cu_die(die->cu, &cudie, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, nullptr) == nullptr) {
    return kUnread;
  }
  const uint64_t key = ::dwarf_dieoffset(&cudie);
  auto [it, inserted] = units_.try_emplace(key);
  if (!inserted) return *it->second;
  it->second = std::make_unique<UnitTree>();
  UnitTree& t = *it->second;
  UnitReader r;
  if (!r.open(die->cu)) return t;
  const uint8_t* p = r.unitDie();
  const Abbrev* a = r.abbrev(p);
  TreeWalk walk(r);
  if (a != nullptr && r.skipValues(*a, p) && (!a->children || walk.children(p, -1, key, 0, t))) {
    t.read = true;
  } else {
    t = UnitTree{};  // half a tree would give wrong parents
  }
  return t;
}

bool ScopeNames::parentOf(Dwarf_Die* die, Dwarf_Die* parent) {
  const UnitTree& t = treeOf(die);
  if (!t.read) return false;
  const uint64_t off = ::dwarf_dieoffset(die);
  auto it = std::lower_bound(t.containers.begin(), t.containers.end(), off,
                             [](const Container& c, uint64_t o) { return c.start < o; });
  int32_t k = static_cast<int32_t>(it - t.containers.begin()) - 1;  // last one starting before
  for (int guard = 0; k >= 0 && guard <= kMaxDieDepth; ++guard) {
    const Container& c = t.containers[k];
    if (c.end > off) break;
    k = c.parent;
  }
  if (k < 0) return false;
  const uint64_t at = t.containers[k].start;
  if (::dwarf_offdie(dwarf_, at, parent) != nullptr && parent->cu == die->cu) return true;
  return ::dwarf_offdie_types(dwarf_, at, parent) != nullptr && parent->cu == die->cu;
}

std::string ScopeNames::functionName(Dwarf_Die* function, int depth) {
  Dwarf_Attribute a;
  const char* linkage = nullptr;
  if (::dwarf_attr_integrate(function, DW_AT_linkage_name, &a) != nullptr ||
      ::dwarf_attr_integrate(function, DW_AT_MIPS_linkage_name, &a) != nullptr) {
    linkage = ::dwarf_formstring(&a);
  }
  std::string_view l = linkage != nullptr ? linkage : "";
  if (l.size() > 2 && l[0] == '_' && (l[1] == 'Z' || l[1] == 'R')) return demangle(l);
  if (depth > kMaxNameDepth) return {};
  return qualifiedName(::dwarf_dieoffset(function), depth + 1);
}

const std::string& ScopeNames::scopeName(Dwarf_Die* scope, int depth) {
  static const std::string kEmpty;
  const uint64_t off = ::dwarf_dieoffset(scope);
  if (auto it = scope_names_.find(off); it != scope_names_.end()) return it->second;
  if (depth > kMaxNameDepth) return kEmpty;
  scope_names_.emplace(off, std::string());  // a cycle in hostile DWARF reads as ""
  std::string name;
  Dwarf_Die parent;
  const bool has_parent = parentOf(scope, &parent);
  const char* own = ::dwarf_diename(scope);
  switch (::dwarf_tag(scope)) {
    case DW_TAG_subprogram:
      name = functionName(scope, depth + 1);
      break;
    case DW_TAG_namespace: {
      std::string prefix = has_parent ? scopeName(&parent, depth + 1) : std::string();
      name = join(prefix, own != nullptr ? own : "(anonymous namespace)");
      break;
    }
    default: {
      std::string prefix = has_parent ? scopeName(&parent, depth + 1) : std::string();
      if (own != nullptr) {
        Dwarf_Die* self = scope;
        name = join(prefix, ownName(&self, 1, own, depth + 1));
      } else {
        name = join(prefix, unnamedTypeName(scope, has_parent ? &parent : nullptr, depth + 1));
      }
      break;
    }
  }
  std::string& slot = scope_names_[off];
  slot = std::move(name);
  return slot;
}

bool ScopeNames::closureSignature(Dwarf_Die* closure, std::string& out, int depth) {
  Dwarf_Die child;
  if (::dwarf_child(closure, &child) != 0) return false;
  do {
    if (::dwarf_tag(&child) != DW_TAG_subprogram) continue;
    const char* name = ::dwarf_diename(&child);
    if (name == nullptr || std::string_view(name) != "operator()") continue;
    out.clear();
    Dwarf_Die param;
    if (::dwarf_child(&child, &param) == 0) {
      do {
        if (::dwarf_tag(&param) != DW_TAG_formal_parameter) continue;
        Dwarf_Attribute a;
        bool artificial = false;
        if (::dwarf_attr(&param, DW_AT_artificial, &a) != nullptr) {
          (void)::dwarf_formflag(&a, &artificial);
        }
        if (artificial) continue;
        Dwarf_Die type;
        if (!out.empty()) out += ", ";
        out += referenced(&param, DW_AT_type, &type) ? typeName(&type, depth + 1) : "?";
      } while (::dwarf_siblingof(&param, &param) == 0);
    }
    return true;
  } while (::dwarf_siblingof(&child, &child) == 0);
  return false;
}

std::string ScopeNames::unnamedTypeName(Dwarf_Die* type, Dwarf_Die* context, int depth) {
  const uint64_t context_off = context != nullptr ? ::dwarf_dieoffset(context) : 0;
  std::string signature;
  const bool closure = closureSignature(type, signature, depth);
  // The ordinal among the unnamed types of the same kind (and, for
  // closures, the same parameters) in the same scope, in DIE order.
  size_t ordinal = 1;
  const UnitTree& t = treeOf(type);
  uint64_t key = context_off;
  if (context == nullptr) {
    Dwarf_Die cudie;
    if (::dwarf_cu_die(type->cu, &cudie, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) !=
        nullptr) {
      key = ::dwarf_dieoffset(&cudie);
    }
  }
  const uint64_t self = ::dwarf_dieoffset(type);
  if (auto it = t.unnamed_types.find(key); it != t.unnamed_types.end()) {
    std::string other;
    for (uint64_t off : it->second) {
      if (off >= self) break;
      Dwarf_Die d;
      if (::dwarf_offdie(dwarf_, off, &d) == nullptr) continue;
      const bool other_closure = closureSignature(&d, other, depth);
      if (other_closure == closure && (!closure || other == signature)) ++ordinal;
    }
  }
  if (closure) return "{lambda(" + signature + ")#" + std::to_string(ordinal) + "}";
  return "{unnamed type#" + std::to_string(ordinal) + "}";
}

std::string ScopeNames::typeName(Dwarf_Die* type, int depth) {
  if (depth > kMaxNameDepth) return "?";
  Dwarf_Die inner;
  const bool has_inner = referenced(type, DW_AT_type, &inner);
  auto innerName = [&]() { return has_inner ? typeName(&inner, depth + 1) : std::string("void"); };
  const char* own = ::dwarf_diename(type);
  switch (::dwarf_tag(type)) {
    case DW_TAG_base_type:
      return std::string(baseTypeName(own != nullptr ? own : "?"));
    case DW_TAG_const_type:
      return innerName() + " const";
    case DW_TAG_volatile_type:
      return innerName() + " volatile";
    case DW_TAG_pointer_type:
      return innerName() + "*";
    case DW_TAG_reference_type:
      return innerName() + "&";
    case DW_TAG_rvalue_reference_type:
      return innerName() + "&&";
    case DW_TAG_typedef:
      // The demangler prints the type a typedef names.
      if (has_inner) return typeName(&inner, depth + 1);
      return own != nullptr ? own : "?";
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
    case DW_TAG_enumeration_type:
      return scopeName(type, depth + 1);
    default:
      return own != nullptr ? own : "?";
  }
}

namespace {

// The number of template arguments in a name's text: the commas at the top
// level of its first "<...>", plus one (0 for "<>").
size_t argumentsInText(std::string_view text) {
  size_t open = text.find('<');
  if (open == std::string_view::npos) return 0;
  size_t count = 0;
  int nest = 0;
  bool any = false;
  for (size_t i = open + 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<' || c == '(' || c == '[') ++nest;
    if (c == ')' || c == ']') --nest;
    if (c == '>') {
      if (nest == 0) break;
      --nest;
    }
    if (c == ',' && nest == 0) ++count;
    if (c != ' ') any = true;
  }
  return any ? count + 1 : 0;
}

}  // namespace

bool ScopeNames::templateArguments(Dwarf_Die* die, std::string& out, size_t& count, int depth) {
  Dwarf_Die child;
  if (depth > kMaxNameDepth || ::dwarf_child(die, &child) != 0) return false;
  bool any = false;
  auto add = [&](Dwarf_Die* param) {
    const int tag = ::dwarf_tag(param);
    if (tag != DW_TAG_template_type_parameter && tag != DW_TAG_template_value_parameter) return;
    if (any) out += ", ";
    any = true;
    ++count;
    Dwarf_Die type;
    if (tag == DW_TAG_template_type_parameter) {
      // A type parameter without a type is void.
      out += referenced(param, DW_AT_type, &type) ? typeName(&type, depth + 1) : "void";
      return;
    }
    Dwarf_Attribute a;
    Dwarf_Sword v = 0;
    if (::dwarf_attr(param, DW_AT_const_value, &a) != nullptr && ::dwarf_formsdata(&a, &v) == 0) {
      out += std::to_string(v);
    } else {
      out += "?";
    }
  };
  do {
    if (::dwarf_tag(&child) == DW_TAG_GNU_template_parameter_pack) {
      Dwarf_Die member;
      if (::dwarf_child(&child, &member) != 0) continue;  // an empty pack
      do {
        add(&member);
      } while (::dwarf_siblingof(&member, &member) == 0);
    } else {
      add(&child);
    }
  } while (::dwarf_siblingof(&child, &child) == 0);
  return any;
}

std::string ScopeNames::ownName(Dwarf_Die* const* chain, size_t n, const char* name, int depth) {
  // GCC writes a closure type inside template arguments as
  // "main(int, char**)::<lambda(int)>", the same for every lambda of a
  // signature: such arguments are written again from the template
  // parameters, with the closures named as above.
  std::string_view text = name;
  const size_t open = text.find('<');
  if (text.find("<lambda") == std::string_view::npos || open == std::string_view::npos ||
      open == 0 || text.substr(0, 8) == "operator") {
    return std::string(text);
  }
  for (size_t i = 0; i < n; ++i) {
    std::string args;
    size_t count = 0;
    if (!templateArguments(chain[i], args, count, depth)) continue;
    // GCC sometimes leaves a pack empty that the text fills (std::tuple's):
    // arguments written again must be all of them.
    if (count != argumentsInText(text)) return std::string(text);
    std::string out(text.substr(0, open));
    out += '<';
    out += args;
    out += out.back() == '>' ? " >" : ">";
    return out;
  }
  return std::string(text);
}

std::string ScopeNames::qualifiedName(uint64_t die) {
  return qualifiedName(die, 0);
}

std::string ScopeNames::qualifiedName(uint64_t die, int depth) {
  Dwarf_Die cur;
  if (::dwarf_offdie(dwarf_, die, &cur) == nullptr) return {};
  // The name from the first DIE along the origin / specification chain
  // that has one; the scope from the last, the declaration (a member
  // defined out of its class points to the one inside it).
  const char* name = nullptr;
  Dwarf_Die chain[kMaxChain + 1];
  Dwarf_Die* chain_ptrs[kMaxChain + 1];
  size_t n = 0;
  for (int i = 0; i <= kMaxChain; ++i) {
    chain[n] = cur;
    chain_ptrs[n] = &chain[n];
    ++n;
    if (name == nullptr) name = ::dwarf_diename(&cur);
    Dwarf_Die next;
    if (!referenced(&cur, DW_AT_abstract_origin, &next) &&
        !referenced(&cur, DW_AT_specification, &next)) {
      break;
    }
    cur = next;
  }
  if (name == nullptr) return {};
  std::string own = ownName(chain_ptrs, n, name, depth);
  Dwarf_Die parent;
  if (!parentOf(&cur, &parent)) return own;
  return join(scopeName(&parent, depth), own);
}

}  // namespace strobe::symbolize
