#include "symbolize/demangle.hpp"

#include <libiberty/demangle.h>

#include <cstdlib>
#include <memory>

namespace strobe::symbolize {

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

}  // namespace strobe::symbolize
