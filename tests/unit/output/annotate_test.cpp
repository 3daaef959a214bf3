// strobe annotate's data (output/annotate.hpp) and text
// (output/annotate_writer.hpp) over a hand-built profile that holds the real
// machine code of tests/fixtures/annotate_loop.cpp's hot() (gcc 12 -O2, as
// objdump -d prints it: the loop is 0x1260..0x1284) and samples placed on
// its instructions; and kept code that is truncated, altered or garbage.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "model/code.hpp"
#include "output/annotate.hpp"
#include "output/annotate_writer.hpp"

namespace strobe::output {
namespace {

using model::FunctionId;
using model::kNone;

const std::vector<uint8_t> kHot = {
    0x49, 0xb9, 0x15, 0x7c, 0x4a, 0x7f, 0xb9, 0x79, 0x37, 0x9e, 0x4c, 0x8d, 0x46, 0x07,
    0x31, 0xc9, 0x48, 0x89, 0xf8, 0x31, 0xd2, 0x4c, 0x31, 0xcf, 0x48, 0xf7, 0xf6, 0x31,
    0xd2, 0x48, 0x01, 0xf8, 0x49, 0xf7, 0xf0, 0x48, 0x8d, 0x3c, 0x0a, 0x48, 0x83, 0xc1,
    0x01, 0x48, 0x81, 0xf9, 0x00, 0x40, 0x00, 0x00, 0x75, 0xdc, 0x48, 0x89, 0xf8, 0xc3};
constexpr uint64_t kStart = 0x1250;

struct Fixture {
  model::Profile p;
  FunctionId hot = kNone, mix = kNone, hotter = kNone;
};

// hot() at file offset and address 0x1250 of module "app"; samples (1 ms
// each) at 0x1273: 50, 0x126b: 25, 0x126d: 10, 0x1265: 8, 0x1277: 5,
// 0x1250: 2, all in mix() inlined into hot() but the last; and hotter(int),
// elsewhere, with 7 samples and no kept code.
Fixture fixture(std::vector<uint8_t> bytes = kHot, std::string arch = "x86_64") {
  Fixture f;
  model::Profile& p = f.p;
  p.meta().event = "cpu-clock";
  model::ModuleId app = p.internModule("/opt/app", "");
  f.hot = p.internFunction("hot", "hot", "/src/loop.cpp", 30);
  f.mix = p.internFunction("(anonymous namespace)::mix(unsigned long, unsigned long, int)",
                           "_ZN12_GLOBAL__N_13mixEmmi", "/src/loop.cpp", 12);
  f.hotter = p.internFunction("hotter(int)", "_Z6hotteri", "/src/other.cpp", 3);
  model::FunctionCode c;
  c.function = f.hot;
  c.module = app;
  c.offset = kStart;
  c.address = kStart;
  c.size = kHot.size();
  c.arch = std::move(arch);
  c.checksum = model::codeChecksum(kHot);
  c.bytes = std::move(bytes);
  model::StringId src = p.internString("/src/loop.cpp");
  c.lines = {{0x0, src, 30},  {0x10, src, 14}, {0x1b, src, 15}, {0x1d, src, 14},
             {0x20, src, 15}, {0x27, src, 13}, {0x34, src, 31}};
  p.addCode(c);
  uint64_t t = 0;
  auto add = [&](uint64_t address, std::vector<model::Line> lines, int n) {
    model::LocationId l = p.internLocation(app, address, address + 0x555555554000);
    p.mutableLocations()[l].lines = std::move(lines);
    model::StackId s = p.internStack(kNone, l);
    for (int i = 0; i < n; ++i) p.addSample({t += 1'000'000, 1, 0, s, 1'000'000});
  };
  add(0x1273, {{f.mix, 15}, {f.hot, 31}}, 50);
  add(0x126b, {{f.mix, 15}, {f.hot, 31}}, 25);
  add(0x126d, {{f.mix, 14}, {f.hot, 31}}, 10);
  add(0x1265, {{f.mix, 14}, {f.hot, 31}}, 8);
  add(0x1277, {{f.mix, 13}, {f.hot, 31}}, 5);
  add(0x1250, {{f.hot, 30}}, 2);
  add(0x3000, {{f.hotter, 4}}, 7);
  return f;
}

const AnnotatedInstruction* at(const Annotation& a, uint64_t address) {
  for (const AnnotatedPart& part : a.parts) {
    for (const AnnotatedInstruction& i : part.instructions) {
      if (i.address == address) return &i;
    }
  }
  return nullptr;
}

bool warned(const Annotation& a, const std::string& text) {
  for (const std::string& w : a.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string render(const Annotation& a, const AnnotateTextOptions& opt) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  writeAnnotation(a, opt, f);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

TEST(AnnotateTest, SharesOfEachInstruction) {
  Fixture f = fixture();
  Annotation a = annotate(f.p, f.hot);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings.front();
  EXPECT_EQ(a.name, "hot");
  EXPECT_EQ(a.samples, 100u);
  EXPECT_EQ(a.weight, 100'000'000u);
  EXPECT_EQ(a.total_samples, 107u);
  ASSERT_EQ(a.parts.size(), 1u);
  const AnnotatedPart& part = a.parts[0];
  EXPECT_EQ(part.module, "app");
  EXPECT_EQ(part.arch, "x86_64");
  ASSERT_EQ(part.instructions.size(), 16u);
  EXPECT_EQ(at(a, 0x1273)->samples, 50u);
  EXPECT_EQ(at(a, 0x1273)->mnemonic, "leaq");
  EXPECT_EQ(at(a, 0x126b)->samples, 25u);
  EXPECT_EQ(at(a, 0x1250)->samples, 2u);
  EXPECT_EQ(at(a, 0x1268)->samples, 0u);
  // The hottest: the fewest instructions that hold half the weight.
  EXPECT_TRUE(at(a, 0x1273)->hottest);
  EXPECT_FALSE(at(a, 0x126b)->hottest);
  // The loop's back edge and where it lands.
  const AnnotatedInstruction* jne = at(a, 0x1282);
  ASSERT_NE(jne, nullptr);
  EXPECT_EQ(jne->kind, disasm::Kind::kBranch);
  EXPECT_EQ(jne->target_name, "hot+0x10");
  EXPECT_TRUE(at(a, 0x1260)->jump_target);
  EXPECT_FALSE(at(a, 0x1263)->jump_target);
  // Line-table rows: 0x1268 is 0x18 into the function, in the row from 0x10.
  EXPECT_EQ(at(a, 0x1268)->line, 14u);
  EXPECT_EQ(at(a, 0x1268)->file, "/src/loop.cpp");
  EXPECT_EQ(at(a, 0x126b)->line, 15u);
  EXPECT_EQ(at(a, 0x1287)->line, 31u);
}

TEST(AnnotateTest, MatchingFunctions) {
  Fixture f = fixture();
  auto names = [&](std::string_view q) {
    std::vector<std::string> out;
    for (const AnnotateCandidate& c : matchFunctions(f.p, q)) out.push_back(c.name);
    return out;
  };
  EXPECT_EQ(names("hot"), std::vector<std::string>{"hot"});  // exact beats prefix
  EXPECT_EQ(names("hotter"), std::vector<std::string>{"hotter(int)"});
  EXPECT_EQ(names("_Z6hotteri"), std::vector<std::string>{"hotter(int)"});
  EXPECT_EQ(names("hott"), std::vector<std::string>{"hotter(int)"});
  EXPECT_EQ(names("ho"), (std::vector<std::string>{"hot", "hotter(int)"}));  // hottest first
  EXPECT_TRUE(names("cold").empty());
  EXPECT_TRUE(names("").empty());
  std::vector<AnnotateCandidate> hot = matchFunctions(f.p, "hot");
  EXPECT_TRUE(hot[0].has_code);
  EXPECT_EQ(hot[0].weight, 100'000'000u);
  EXPECT_EQ(hot[0].module, "app");
  // mix() has no code of its own: it was inlined into hot(). Its name
  // without scopes and parameters names it too.
  EXPECT_EQ(names("mix").size(), 1u);
  std::vector<AnnotateCandidate> mix = matchFunctions(f.p, "(anonymous namespace)::mix");
  ASSERT_EQ(mix.size(), 1u);
  EXPECT_EQ(mix[0].weight, 0u);
  EXPECT_FALSE(mix[0].has_code);
  EXPECT_EQ(mix[0].inlined_into, std::vector<FunctionId>{f.hot});
  // hotter(int) holds samples but no kept code.
  std::vector<AnnotateCandidate> hotter = matchFunctions(f.p, "hotter");
  EXPECT_FALSE(hotter[0].has_code);
  EXPECT_EQ(hotter[0].weight, 7'000'000u);
  Annotation a = annotate(f.p, f.hotter);
  EXPECT_TRUE(a.parts.empty());
  EXPECT_TRUE(warned(a, "the recording kept no code of hotter(int)"));
}

TEST(AnnotateTest, WithoutParameters) {
  EXPECT_EQ(withoutParameters("ns::f(int) const"), "ns::f");
  EXPECT_EQ(withoutParameters("(anonymous namespace)::g()"), "(anonymous namespace)::g");
  EXPECT_EQ(withoutParameters("f(std::function<void (int)>) &&"), "f");
  EXPECT_EQ(withoutParameters("operator()(int)"), "operator()");
  EXPECT_EQ(withoutParameters("plain_c"), "plain_c");
  EXPECT_EQ(withoutParameters("()"), "()");
  EXPECT_EQ(withoutParameters("f(int"), "f(int");
  EXPECT_EQ(withoutParameters(""), "");
  EXPECT_EQ(unqualified("a::b<c::d>::e"), "e");
  EXPECT_EQ(unqualified("(anonymous namespace)::mix"), "mix");
  EXPECT_EQ(unqualified("ns::S<int (*)(a::b)>::operator()"), "operator()");
  EXPECT_EQ(unqualified("std::vector<a::b>"), "vector<a::b>");
  EXPECT_EQ(unqualified("plain"), "plain");
  EXPECT_EQ(unqualified("::"), "");
}

TEST(AnnotateTest, TruncatedCodeIsDisassembledAsFarAsItGoes) {
  std::vector<uint8_t> cut(kHot.begin(), kHot.begin() + 0x21);  // ends inside the second div
  Fixture f = fixture(cut);
  Annotation a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a,
                     "hot (app 0x1250): the kept code is truncated: 33 of 56 bytes; the "
                     "disassembly stops at 0x1271"));
  EXPECT_TRUE(warned(a, "the kept code is corrupt: its checksum differs"));
  EXPECT_TRUE(warned(a, "55 samples fell past the kept code"));
  ASSERT_FALSE(a.parts[0].instructions.empty());
  const AnnotatedInstruction& last = a.parts[0].instructions.back();
  EXPECT_EQ(last.address, 0x1270u);
  EXPECT_EQ(last.kind, disasm::Kind::kInvalid);
  EXPECT_EQ(a.weight, 100'000'000u) << "samples past the bytes still count for the function";
  EXPECT_EQ(at(a, 0x126b)->samples, 25u);
}

TEST(AnnotateTest, AlteredCodeIsFlagged) {
  std::vector<uint8_t> altered = kHot;
  altered[0x12] = 0x06;  // invalid in 64-bit mode: decoding gets out of step
  Fixture f = fixture(altered);
  Annotation a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a,
                     "hot (app 0x1250): the kept code is corrupt: its checksum differs from "
                     "the recorded one, so the disassembly may not be the code that ran"));
  EXPECT_FALSE(a.parts[0].instructions.empty());

  std::vector<uint8_t> longer = kHot;
  longer.resize(kHot.size() + 8, 0x90);
  f = fixture(longer);
  a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a,
                     "the kept code is corrupt: 64 bytes for a 56-byte function; the extra "
                     "bytes are ignored"));
  EXPECT_EQ(a.parts[0].instructions.back().address, 0x1287u);

  // More than any recorder keeps: not disassembled at all.
  f = fixture(std::vector<uint8_t>(model::kMaxFunctionCodeBytes + 1, 0x90));
  f.p.mutableCode()[0].size = model::kMaxFunctionCodeBytes + 1;
  a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a,
                     "the kept code is corrupt: 262145 bytes, more than strobe keeps of a "
                     "function (256 KiB); not disassembled"));
  EXPECT_TRUE(a.parts[0].instructions.empty());
}

TEST(AnnotateTest, CodeThatCannotBeDisassembled) {
  Fixture f = fixture(kHot, "mips");
  Annotation a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a, "cannot disassemble code of architecture 'mips'"));
  ASSERT_EQ(a.parts.size(), 1u);
  EXPECT_TRUE(a.parts[0].instructions.empty());
  EXPECT_EQ(a.weight, 100'000'000u);

  f = fixture({});
  a = annotate(f.p, f.hot);
  EXPECT_TRUE(warned(a,
                     "no code bytes kept (the recording's 32 MiB of kept code went to hotter "
                     "functions, or the file could not be read while recording)"));
  std::string text = render(a, {});
  EXPECT_NE(text.find("(no instructions: see the warnings)"), std::string::npos) << text;
}

TEST(AnnotateTest, TextIsPlainUnlessColourIsAsked) {
  Fixture f = fixture();
  Annotation a = annotate(f.p, f.hot);
  AnnotateTextOptions opt;
  opt.event = "cpu-clock";
  opt.source_text = [](const std::string& file, uint32_t line) -> std::optional<std::string> {
    if (file != "/src/loop.cpp") return std::nullopt;
    return "text of line " + std::to_string(line) + "\t\x1b[2J";
  };
  std::string text = render(a, opt);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no escapes: " << text;
  EXPECT_NE(text.find("hot in app (x86_64)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("self: 100.0 ms in 100 samples, 93.5% of the 107.0 ms sampled\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" SELF%    ADDRESS  INSTRUCTION\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 50.0% *     1273  leaq    (%rdx, %rcx), %rdi\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n         >   1260  movq    %rdi, %rax\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n             1282  jne     0x1260 <hot+0x10>\n"), std::string::npos)
      << text;
  // Source rows where the line changes; a terminal escape in the text is
  // written as '?', a tab as spaces.
  EXPECT_NE(text.find("\n                   loop.cpp:14  text of line 14 ?[2J\n"),
            std::string::npos)
      << text;

  opt.color = true;
  std::string coloured = render(a, opt);
  EXPECT_NE(coloured.find("\x1b[1;31m 50.0% * \x1b[0m"), std::string::npos) << coloured;
  EXPECT_NE(coloured.find("\x1b[36mloop.cpp:14"), std::string::npos) << coloured;

  opt.color = false;
  opt.source = false;
  opt.threshold_pct = 9;
  std::string hot = render(a, opt);
  EXPECT_EQ(hot.find("loop.cpp:"), std::string::npos) << hot;
  EXPECT_NE(hot.find("... 5 instructions below 9%\n"), std::string::npos) << hot;
  EXPECT_NE(hot.find(" 25.0%"), std::string::npos) << hot;
  EXPECT_EQ(hot.find("  8.0%"), std::string::npos) << hot;
}

TEST(AnnotateTest, CountingEventsShowTheirUnit) {
  Fixture f = fixture();
  f.p.meta().event = "page-faults";
  Annotation a = annotate(f.p, f.hot);
  AnnotateTextOptions opt;
  opt.event = "page-faults";
  std::string text = render(a, opt);
  EXPECT_NE(text.find("self: 100000000 faults in 100 samples"), std::string::npos) << text;
}

// Whatever the kept bytes, sizes and line rows, annotate and its text never
// crash, and every byte it decodes belongs to one instruction.
TEST(AnnotateTest, GarbageNeverCrashes) {
  std::mt19937_64 rng(22);
  for (int round = 0; round < 500; ++round) {
    std::vector<uint8_t> bytes(rng() % 96);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    Fixture f = fixture(bytes, round % 2 == 0 ? "x86_64" : "aarch64");
    model::FunctionCode& c = f.p.mutableCode()[0];
    c.size = rng() % 128;
    c.checksum = rng() % 2 == 0 ? model::codeChecksum(bytes) : rng();
    for (model::CodeLine& l : c.lines) l.offset = static_cast<uint32_t>(rng() % 160);
    Annotation a = annotate(f.p, f.hot);
    for (const AnnotatedPart& part : a.parts) {
      uint64_t next = part.address;
      for (const AnnotatedInstruction& i : part.instructions) {
        ASSERT_EQ(i.address, next);
        ASSERT_GT(i.size, 0u);
        next += i.size;
      }
      ASSERT_LE(next - part.address, std::min<uint64_t>(c.size, bytes.size()));
    }
    AnnotateTextOptions opt;
    opt.threshold_pct = static_cast<double>(rng() % 20);
    std::string text = render(a, opt);
    ASSERT_FALSE(text.empty());
  }
}

}  // namespace
}  // namespace strobe::output
