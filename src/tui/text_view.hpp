// The text form of a Snapshot, shared by batch mode (printed as is) and the
// curses screen (drawn line by line): one header line, the column headings
// SELF% TOTAL% SAMPLES FUNCTION LOCATION (LINE, MODULE or THREAD for the
// other groupings), then one line per row; "(no samples)" when there is
// none. Rows resting on few samples are marked '*' after SELF%, and a last
// line says how uncertain their shares are (output::fewSamplesNote).
// Owns: nothing. Thread safety: pure functions. No I/O.
#pragma once

#include <string>
#include <vector>

#include "tui/snapshot.hpp"

namespace strobe::tui {

// "strobe top: CMD   elapsed 1.50 s   sampled CPU 2.95 s   1990 samples/s   0 lost   2 threads
// cumulative"
std::string headerLine(const Snapshot& s);

// The headings and the rows, fitted into `width` columns by cutting the
// middle of long names (output::fitMiddle); 0: never cut.
std::vector<std::string> tableLines(const Snapshot& s, size_t width = 0);

// headerLine, then tableLines, each ending in '\n'.
std::string formatSnapshot(const Snapshot& s, size_t width = 0);

}  // namespace strobe::tui
