#include "symbolize/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace strobe::symbolize {

std::string demangle(std::string_view name) {
  // Only Itanium-mangled names; __cxa_demangle would also "demangle" plain
  // words like "i" or "f" as type names.
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  std::string input(name);  // __cxa_demangle needs a NUL-terminated copy
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || out == nullptr) return input;
  return std::string(out.get());
}

}  // namespace strobe::symbolize
