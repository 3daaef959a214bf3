#include "output/annotate_writer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/aggregate.hpp"
#include "model/module_path.hpp"
#include "output/text_report.hpp"

namespace strobe::output {
namespace {

constexpr const char* kHot = "\x1b[1;31m";
constexpr const char* kWarm = "\x1b[33m";
constexpr const char* kSource = "\x1b[36m";
constexpr const char* kTarget = "\x1b[34m";
constexpr const char* kReset = "\x1b[0m";

// Control characters as '?', tabs expanded to the next multiple of 8.
std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\t') {
      out.append(8 - out.size() % 8, ' ');
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += '?';
    } else {
      out += c;
    }
  }
  return out;
}

class Writer {
 public:
  Writer(const Annotation& a, const AnnotateTextOptions& opt, std::FILE* out)
      : a_(a), opt_(opt), out_(out) {}

  void write() {
    header();
    for (size_t k = 0; k < a_.parts.size(); ++k) part(a_.parts[k], k);
  }

 private:
  std::string amount(uint64_t weight) const {
    if (model::isTimeEvent(opt_.event)) return formatDuration(weight);
    return fmt::format("{} {}", weight, model::eventUnit(opt_.event));
  }
  double pct(uint64_t part, uint64_t whole) const { return sharePct(part, whole); }
  std::string paint(const char* colour, const std::string& s) const {
    return opt_.color && !s.empty() ? std::string(colour) + s + kReset : s;
  }

  void header() {
    const std::string module = a_.parts.empty() ? std::string() : a_.parts.front().module;
    const std::string arch = a_.parts.empty() ? std::string() : a_.parts.front().arch;
    fmt::print(out_, "{}", printable(a_.name));
    if (!module.empty()) fmt::print(out_, " in {}", printable(module));
    if (!arch.empty()) fmt::print(out_, " ({})", arch);
    fmt::print(out_, "\n");
    fmt::print(out_, "self: {} in {} samples, {:.1f}% of the {} sampled\n", amount(a_.weight),
               a_.samples, pct(a_.weight, a_.total_weight), amount(a_.total_weight));
    if (opt_.source && !a_.file.empty()) fmt::print(out_, "source: {}\n", printable(a_.file));
  }

  void part(const AnnotatedPart& p, size_t index) {
    fmt::print(out_, "\n");
    if (a_.parts.size() > 1) {
      fmt::print(out_, "part {} of {}: ", index + 1, a_.parts.size());
    }
    fmt::print(out_, "code at {:#x}..{:#x} ({} bytes){}\n", p.address, p.address + p.size, p.size,
               a_.parts.size() > 1
                   ? fmt::format(", {:.1f}% of the function's samples", pct(p.weight, a_.weight))
                   : std::string());
    if (p.instructions.empty()) {
      fmt::print(out_, "(no instructions: see the warnings)\n");
      return;
    }
    size_t width = 7;  // "ADDRESS"
    for (const AnnotatedInstruction& i : p.instructions) {
      width = std::max(width, fmt::format("{:x}", i.address).size());
    }
    // An instruction line: share (6), space, hot mark, space, target mark,
    // the address, two spaces, the instruction.
    indent_ = 10 + width + 2;
    fmt::print(out_, "{:>6}    {:>{}}  {}\n", "SELF%", "ADDRESS", width, "INSTRUCTION");
    last_file_.clear();
    last_line_ = 0;
    size_t skipped = 0;
    for (const AnnotatedInstruction& i : p.instructions) {
      if (opt_.threshold_pct > 0 && pct(i.weight, a_.weight) < opt_.threshold_pct) {
        ++skipped;
        continue;
      }
      gap(skipped);
      skipped = 0;
      sourceRow(i);
      instruction(i, width);
    }
    gap(skipped);
  }

  void gap(size_t skipped) {
    if (skipped == 0) return;
    fmt::print(out_, "{:>{}}... {} instruction{} below {}%\n", "", indent_, skipped,
               skipped == 1 ? "" : "s", opt_.threshold_pct);
  }

  void sourceRow(const AnnotatedInstruction& i) {
    if (!opt_.source || i.line == 0 || (i.file == last_file_ && i.line == last_line_)) return;
    last_file_ = i.file;
    last_line_ = i.line;
    std::string row = fmt::format("{}:{}", printable(model::baseName(i.file)), i.line);
    if (opt_.source_text) {
      if (std::optional<std::string> text = opt_.source_text(i.file, i.line)) {
        row += "  " + printable(*text);
      }
    }
    fmt::print(out_, "{:>{}}{}\n", "", indent_, paint(kSource, row));
  }

  void instruction(const AnnotatedInstruction& i, size_t width) {
    std::string share = i.weight > 0 ? fmt::format("{:.1f}%", pct(i.weight, a_.weight)) : "";
    std::string text = fmt::format("{:<7} {}", printable(i.mnemonic), printable(i.operands));
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (!i.target_name.empty()) text += " <" + printable(i.target_name) + ">";
    std::string line = fmt::format("{:>6} {} ", share, i.hottest ? '*' : ' ');
    const std::string mark = i.jump_target ? paint(kTarget, ">") : " ";
    const std::string address = fmt::format("{:>{}x}", i.address, width);
    if (i.hottest) {
      fmt::print(out_, "{}{}{}  {}\n", paint(kHot, line), mark, paint(kHot, address),
                 paint(kHot, text));
    } else if (i.weight > 0) {
      fmt::print(out_, "{}{}{}  {}\n", paint(kWarm, line), mark, address, text);
    } else {
      fmt::print(out_, "{}{}{}  {}\n", line, mark, address, text);
    }
  }

  const Annotation& a_;
  const AnnotateTextOptions& opt_;
  std::FILE* out_;
  size_t indent_ = 0;
  std::string last_file_;
  uint32_t last_line_ = 0;
};

}  // namespace

void writeAnnotation(const Annotation& a, const AnnotateTextOptions& opt, std::FILE* out) {
  Writer(a, opt, out).write();
}

}  // namespace strobe::output
