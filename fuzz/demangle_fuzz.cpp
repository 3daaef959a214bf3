// Symbol names from ELF symbol tables, DWARF and recordings (all written by
// others) through the demangler (libiberty) and clone-suffix handling.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "symbolize/demangle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  const std::string_view name = fuzz::asText({data, size});
  (void)symbolize::demangle(name);
  (void)symbolize::demangleLikeBinutils(name);
  (void)symbolize::cloneBase(name);
  (void)symbolize::cloneSuffix(name);
  return 0;
}
