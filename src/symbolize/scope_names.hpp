// ScopeNames: the qualified name of a DWARF function that has no linkage
// name (an inlined member of a class template, a lambda's operator(), a
// static function in a namespace), built from the names of the DIEs that
// enclose its declaration, as a demangled linkage name would read:
//   std::thread::_Invoker<std::tuple<...> >::operator()
//   main::{lambda(int)#2}::operator()
//   (anonymous namespace)::helper
//   std::__invoke<main::{lambda(int)#1}, int>
// Namespaces and classes give their names ("(anonymous namespace)" when
// unnamed); an enclosing function gives its own name (its demangled
// linkage name, with parameters, or its qualified DW_AT_name); a lambda's
// closure type reads "{lambda(PARAMS)#N}" (N counts the closures with the
// same parameters in the same function, as the C++ ABI numbers them) and
// another unnamed type "{unnamed type#N}". GCC's own text for a closure in
// template arguments ("main(int, char**)::<lambda(int)>") is the same for
// every lambda of a signature: names with it have their template arguments
// written again from the DIE's template parameters.
//
// DWARF has no parent links: the first name asked of a unit walks its DIE
// tree once (through a UnitReader, die_reader.hpp) and keeps the extents of
// the DIEs that can enclose a name; a unit the reader cannot read gives
// plain names. Names are memoized per DIE.
// Used for report naming only (frame_names.hpp), never by `strobe
// symbolize`'s addr2line-compatible output.
// Owns: its per-unit tables and memoized names. Borrows the Dwarf handle.
// Thread safety: none (one thread at a time, as DwarfIndex).
// Malformed DWARF (cycles, absurd depth) yields shorter names, never a crash.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace strobe::symbolize {

class ScopeNames {
 public:
  explicit ScopeNames(Dwarf* dwarf) : dwarf_(dwarf) {}

  // The qualified name of the function whose DIE is at `die` (its name
  // through DW_AT_abstract_origin / DW_AT_specification), "" when it has
  // none.
  std::string qualifiedName(uint64_t die);

 private:
  // A DIE that can enclose a name: a namespace, class, structure, union,
  // enumeration or function with children.
  struct Container {
    uint64_t start = 0;
    uint64_t end = 0;  // past its last descendant
    int32_t parent = -1;
  };
  struct UnitTree {
    std::vector<Container> containers;  // in DIE order (sorted by start)
    // Unnamed classes and structures (closure types among them), by the
    // container that encloses them, in DIE order.
    std::unordered_map<uint64_t, std::vector<uint64_t>> unnamed_types;
    bool read = false;  // false: the unit could not be walked
  };

  // `depth`: scopes, types and template arguments followed so far, shared
  // by every recursion below (bounded: hostile DWARF can nest without end).
  std::string qualifiedName(uint64_t die, int depth);
  UnitTree& treeOf(Dwarf_Die* die);
  // The naming DIE enclosing `die` (kNone-like false when at the unit's top).
  bool parentOf(Dwarf_Die* die, Dwarf_Die* parent);
  // The prefix a DIE gives the names inside it ("std::thread",
  // "main::{lambda(int)#1}"), memoized.
  const std::string& scopeName(Dwarf_Die* scope, int depth);
  std::string unnamedTypeName(Dwarf_Die* type, Dwarf_Die* context, int depth);
  // A type as the demangler prints it ("char const*", "std::string&").
  std::string typeName(Dwarf_Die* type, int depth);
  // The parameters of a closure's operator(), "" when it has none.
  bool closureSignature(Dwarf_Die* closure, std::string& out, int depth);
  std::string functionName(Dwarf_Die* function, int depth);
  // The template arguments of a DIE, from its template parameters, and how
  // many; false when it has none.
  bool templateArguments(Dwarf_Die* die, std::string& out, size_t& count, int depth);
  // A DIE's own name: `name`, or with its template arguments written again
  // when GCC's text cannot tell lambdas apart (from the first DIE of
  // `chain` that has template parameters).
  std::string ownName(Dwarf_Die* const* chain, size_t n, const char* name, int depth);

  Dwarf* dwarf_;
  std::unordered_map<uint64_t, std::unique_ptr<UnitTree>> units_;  // by unit DIE offset
  std::unordered_map<uint64_t, std::string> scope_names_;          // by DIE offset
};

}  // namespace strobe::symbolize
