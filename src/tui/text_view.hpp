// The text form of a Snapshot, shared by batch mode (printed as is) and the
// curses screen (drawn line by line): one header line, the column headings
// SELF% TOTAL% SAMPLES FUNCTION LOCATION (LINE, MODULE or THREAD for the
// other groupings), then one line per row; "(no samples)" when there is none.
// Owns: nothing. Thread safety: pure functions. No I/O.
#pragma once

#include <string>
#include <vector>

#include "tui/snapshot.hpp"

namespace strobe::tui {

// "strobe top: CMD   elapsed 1.50 s   sampled CPU 2.95 s   1990 samples/s   0 lost   2 threads
// cumulative"
std::string headerLine(const Snapshot& s);

// The headings and the rows; names longer than `max_name` are cut with "...".
std::vector<std::string> tableLines(const Snapshot& s, size_t max_name = 60);

// headerLine, then tableLines, each ending in '\n'.
std::string formatSnapshot(const Snapshot& s);

}  // namespace strobe::tui
