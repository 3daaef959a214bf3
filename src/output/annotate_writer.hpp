// The text of `strobe annotate`: an Annotation (annotate.hpp) as a header
// (function, module, self time and share of the recording) and, per kept
// range, one line per instruction: its share of the function's self weight
// (blank when unsampled), `*` on the hottest, `>` on jump targets, the
// address as the ELF file states it, the instruction (x86-64 in AT&T syntax)
// and, for a direct jump or call into a kept function, `<name+0xOFF>`.
// Source lines (file:line and, when the caller can read it, the text) are
// interleaved where the line-table row changes.
//
// Colour (ANSI) only when asked: the caller decides (a terminal, not a
// pipe). Control characters in names and source text are written as '?'.
// Thread safety: pure over a const Annotation; `out` is the caller's.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "output/annotate.hpp"

namespace strobe::output {

struct AnnotateTextOptions {
  bool source = true;        // interleave source lines
  double threshold_pct = 0;  // show only instructions with at least this share
  bool color = false;        // ANSI colour
  std::string_view event;    // the recording's event (Meta::event), for the units
  // The text of line `line` of `file` (1-based), nullopt when unreadable.
  std::function<std::optional<std::string>(const std::string& file, uint32_t line)> source_text;
};

void writeAnnotation(const Annotation& a, const AnnotateTextOptions& opt, std::FILE* out);

}  // namespace strobe::output
