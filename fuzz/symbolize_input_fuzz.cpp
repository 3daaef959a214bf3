// `strobe symbolize`'s input: lines of addresses as a program pipes them in
// (parseAddress, as addr2line reads them), answered against a real binary
// (this one: DWARF 5 from Clang) with every option, text and JSON.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/text_buffer.hpp"
#include "fuzz/fuzz_input.hpp"
#include "symbolize/addr2line.hpp"
#include "symbolize/address_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  static std::unique_ptr<symbolize::Addr2Line> engine = [] {
    auto e = symbolize::Addr2Line::open("/proc/self/exe");
    if (!e) std::abort();
    return std::move(*e);
  }();
  if (size == 0) return 0;
  // The first byte picks the options; the rest is the input, line by line.
  const uint8_t flags = data[0];
  const std::string_view text = fuzz::asText({data + 1, size - 1});
  std::vector<uint64_t> addrs;
  for (size_t start = 0; start < text.size() && addrs.size() < 64;) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    // A NUL-terminated line, as the command hands it over.
    addrs.push_back(symbolize::parseAddress(std::string(text.substr(start, nl - start)).c_str()));
    start = nl + 1;
  }
  symbolize::Addr2LineOptions opt{(flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0,
                                  (flags & 8) != 0, (flags & 16) != 0};
  TextBuffer out;
  engine->answer(addrs, opt, (flags & 32) != 0, out, 1024, [](TextBuffer& b) {
    b.clear();
    return true;
  });
  return 0;
}
