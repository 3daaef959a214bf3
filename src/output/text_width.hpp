// How wide text reports may be, and how a name that does not fit is cut.
//
// A report written to a terminal fits its width (TIOCGWINSZ); written
// anywhere else (a file, a pipe) it is never cut, as `perf report --stdio`
// and `pprof -top` do; `--width N` sets the width either way. Names that
// do not fit lose their middle, not their distinguishing tail:
// "std::vector<int>::_M_realloc_insert<int const&>(...)" keeps its start
// and its end around "...".
// Thread safety: pure functions (terminalWidth reads the terminal's size).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace strobe::output {

inline constexpr size_t kNoWidthLimit = 0;

// The columns of the terminal `out` writes to; kNoWidthLimit when `out` is
// not a terminal (or its size is unknown).
size_t terminalWidth(std::FILE* out);

// `s` cut to at most `width` bytes by replacing its middle with "..."
// (a third of the rest from the start, two thirds from the end)
// (never inside a UTF-8 character); whole when it fits or width is
// kNoWidthLimit. Widths below 5 are taken as 5.
std::string fitMiddle(std::string_view s, size_t width);

}  // namespace strobe::output
