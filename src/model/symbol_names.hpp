// What the model needs to know about symbol and file names to tell when two
// functions are one: compiler clone suffixes, and source paths written in
// several ways. Pure string functions; no I/O, no allocation but the
// returned strings.
#pragma once

#include <string>
#include <string_view>

namespace strobe::model {

// The name without GCC/Clang clone suffixes: "_Z3fooi.part.0" -> "_Z3fooi";
// also .cold, .isra.N, .constprop.N, .lto_priv.N, .localalias, .llvm.N and
// chains of them. A name without such suffixes comes back whole.
std::string_view cloneBase(std::string_view name);
// The clone suffix (".part.0", ".cold", ...), "" when none.
std::string_view cloneSuffix(std::string_view name);
inline bool isClone(std::string_view name) {
  return !cloneSuffix(name).empty();
}

// A path with "." components, repeated slashes and "dir/.." pairs removed,
// lexically (no file system access, symbolic links not followed):
// "./csu/../csu/libc-start.c" -> "csu/libc-start.c", "/a//b/./c" ->
// "/a/b/c". ".." that cannot be removed stays at the start of a relative
// path and is dropped after the root of an absolute one; "" stays "".
std::string normalizePath(std::string_view path);

}  // namespace strobe::model
