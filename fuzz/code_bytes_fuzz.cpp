// libFuzzer target: strobe annotate over kept code bytes it cannot trust
// (output/annotate.hpp: checks of the bytes against the range's size and
// checksum, disassembly through src/disasm, samples and line rows placed on
// the instructions, and the text writer).
//
// Input: byte 0 the architecture (0: x86_64, 1: aarch64, other: unknown),
// bytes 1-2 the range's size (little-endian), byte 3 whether the checksum
// is right (0) or not, byte 4 a count of line rows then 3 bytes each
// (offset: 2, line: 1), then a count of sampled addresses then 3 bytes each
// (offset: 2, samples: 1), then the code bytes. Missing fields are 0.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "model/code.hpp"
#include "output/annotate.hpp"
#include "output/annotate_writer.hpp"

namespace {

struct Input {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  uint8_t u8() { return at < size ? data[at++] : 0; }
  uint16_t u16() {
    uint16_t lo = u8();
    return static_cast<uint16_t>(lo | (u8() << 8));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  Input in{data, size};
  model::Profile p;
  p.meta().event = "cpu-clock";
  const model::ModuleId app = p.internModule("/fuzz/app", "");
  const model::FunctionId f = p.internFunction("f(int)", "_Z1fi", "/fuzz/f.cpp", 1);
  const model::StringId file = p.internString("/fuzz/f.cpp");
  model::FunctionCode c;
  c.function = f;
  c.module = app;
  c.offset = 0x1000;
  c.address = 0x401000;
  const uint8_t arch = in.u8();
  c.arch = arch == 0 ? "x86_64" : arch == 1 ? "aarch64" : "unknown";
  c.size = in.u16();
  const bool right_checksum = in.u8() == 0;
  for (uint8_t n = in.u8() % 32; n > 0; --n) {
    uint16_t off = in.u16();
    c.lines.push_back(model::CodeLine{off, file, in.u8()});
  }
  struct Sampled {
    uint16_t offset;
    uint8_t count;
  };
  std::vector<Sampled> sampled;
  for (uint8_t n = in.u8() % 32; n > 0; --n) {
    uint16_t off = in.u16();
    sampled.push_back({off, in.u8()});
  }
  if (in.at < size) c.bytes.assign(data + in.at, data + size);
  c.checksum = right_checksum ? model::codeChecksum(c.bytes) : 0x5eed;
  p.addCode(std::move(c));
  uint64_t t = 0;
  for (const Sampled& s : sampled) {
    model::LocationId l = p.internLocation(app, 0x1000 + s.offset, 0x555555555000 + s.offset);
    p.mutableLocations()[l].lines = {{f, 2}};
    model::StackId st = p.internStack(model::kNone, l);
    for (uint8_t k = 0; k < s.count % 8; ++k) p.addSample({++t, 1, 0, st, 1000});
  }

  output::Annotation a = output::annotate(p, f);
  static std::FILE* sink = std::fopen("/dev/null", "w");
  output::AnnotateTextOptions opt;
  opt.threshold_pct = static_cast<double>(size % 7);
  opt.color = (size & 1) != 0;
  opt.source_text = [](const std::string&, uint32_t line) -> std::optional<std::string> {
    if (line % 3 == 0) return std::nullopt;
    return std::string("\t\x1b[31mline\x7f");
  };
  output::writeAnnotation(a, opt, sink);
  return 0;
}
