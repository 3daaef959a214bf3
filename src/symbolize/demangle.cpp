#include "symbolize/demangle.hpp"

#include <libiberty/demangle.h>

#include <cstdlib>
#include <memory>

namespace strobe::symbolize {
namespace {

bool isDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// One dot-separated component of a clone suffix chain.
bool isCloneWord(std::string_view w) {
  for (std::string_view k : {"part", "cold", "isra", "constprop", "lto_priv", "localalias", "clone",
                             "llvm", "specialized", "str"}) {
    if (w == k) return true;
  }
  return isDigits(w);
}

// [pos, end) is a chain of clone components (each ".word" or ".N"), the
// first one a word.
bool isCloneChain(std::string_view tail) {
  bool first = true;
  while (!tail.empty()) {
    if (tail.front() != '.') return false;
    tail.remove_prefix(1);
    size_t dot = tail.find('.');
    std::string_view w = tail.substr(0, dot);
    if (!isCloneWord(w) || (first && isDigits(w))) return false;
    first = false;
    tail = dot == std::string_view::npos ? std::string_view() : tail.substr(dot);
  }
  return !first;
}

size_t cloneStart(std::string_view name) {
  for (size_t dot = name.find('.', 1); dot != std::string_view::npos;
       dot = name.find('.', dot + 1)) {
    if (isCloneChain(name.substr(dot))) return dot;
  }
  return name.size();
}

}  // namespace

using Demangled = std::unique_ptr<char, decltype(&std::free)>;

std::string demangle(std::string_view name) {
  // Only mangled names: the demanglers would also "demangle" plain words.
  if (name.size() < 3 || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) {
    return std::string(name);
  }
  std::string input(name);  // NUL-terminated copy
  constexpr int kOptions = DMGL_PARAMS | DMGL_ANSI;
  // Rust legacy names are also valid C++ names: try Rust first, as binutils does.
  Demangled out(rust_demangle(input.c_str(), kOptions), &std::free);
  if (out == nullptr) out.reset(cplus_demangle_v3(input.c_str(), kOptions));
  return out != nullptr ? std::string(out.get()) : input;
}

std::string demangleLikeBinutils(std::string_view name) {
  size_t pre = 0;
  while (pre < name.size() && (name[pre] == '.' || name[pre] == '$')) ++pre;
  size_t at = name.find('@', pre);
  if (at == std::string_view::npos) at = name.size();
  std::string core(name.substr(pre, at - pre));
  Demangled out(cplus_demangle(core.c_str(), DMGL_PARAMS | DMGL_ANSI), &std::free);
  if (out == nullptr) return std::string(name);
  std::string result(name.substr(0, pre));
  result += out.get();
  result += name.substr(at);
  return result;
}

std::string_view cloneBase(std::string_view name) {
  return name.substr(0, cloneStart(name));
}

std::string_view cloneSuffix(std::string_view name) {
  return name.substr(cloneStart(name));
}

}  // namespace strobe::symbolize
