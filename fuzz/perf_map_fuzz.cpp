// /tmp/perf-PID.map files (written by any JIT, so by any program) and the
// text of /proc/kallsyms: parsed into sorted tables, then looked up. Kallsyms
// answers from the text itself where it looks sorted: every answer must be
// the whole parse's.
#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_input.hpp"
#include "symbolize/kallsyms.hpp"
#include "symbolize/perf_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  const std::string_view text = fuzz::asText({data, size});
  symbolize::PerfMap map = symbolize::PerfMap::parse(text);
  symbolize::Kallsyms kallsyms = symbolize::Kallsyms::parse(text);
  const symbolize::Kallsyms whole = symbolize::Kallsyms::parseWhole(text);
  auto checkKallsyms = [&](uint64_t a) {
    if (kallsyms.lookup(a) != whole.lookup(a)) std::abort();
    const auto r = kallsyms.range(a);
    const auto w = whole.range(a);
    if (r.has_value() != w.has_value() || (r && (r->start != w->start || r->end != w->end))) {
      std::abort();
    }
  };
  // Addresses near what the text names, and the extremes.
  const uint64_t probes[] = {
      0, 1, 0x1000, 0x400000, 0xffffffff81000000ULL, UINT64_MAX, UINT64_MAX - 1};
  for (uint64_t a : probes) {
    (void)map.lookup(a);
    checkKallsyms(a);
  }
  fuzz::Bytes rest{data, size};
  while (rest.size() >= 8) {
    const uint64_t a = fuzz::takeInt(rest, 8);
    if (auto name = map.lookup(a); name && name->empty()) std::abort();  // names are never empty
    checkKallsyms(a);
  }
  return 0;
}
