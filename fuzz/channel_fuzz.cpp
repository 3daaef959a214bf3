// libFuzzer target: the span channel's reader (src/channel/consumer.hpp) on
// a channel whose every byte the program controls: the header's layout,
// the name table, slot identities and ring records. Whatever the bytes,
// validation, joining and draining must neither crash nor read outside the
// mapping. Seed: corpus/channel/ (a one-slot channel with a role and a span).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "channel/consumer.hpp"

namespace {

struct Sink : strobe::channel::Sink {
  size_t bytes = 0;
  void span(const strobe::channel::SpanEvent& s) override { bytes += s.name.size(); }
  void role(int32_t, std::string_view role, int32_t) override { bytes += role.size(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < strobe::channel::kHeaderBytes || size > (8U << 20)) return 0;
  // A mapping is page aligned; a vector's storage is aligned enough for the atomics.
  std::vector<uint64_t> words((size + 7) / 8);
  std::memcpy(words.data(), data, size);
  auto c = strobe::channel::Consumer::borrow(words.data(), size);
  if (!c.ok()) return 0;
  // adopt: the seed joined reader 1 as pid 1, so what its rings hold is read.
  if (!(*c)->adopt(strobe::channel::kReaderExternal, 1).ok()) return 0;
  Sink s;
  (*c)->drain(s);
  (*c)->drain(s);
  return 0;
}
