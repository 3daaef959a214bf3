// The keys of the interactive view and what they change: q quits; f, l, m,
// t group rows by function, line, module or thread; w switches between
// cumulative and windowed; + and - show one more or one fewer row.
// Owns: nothing. Thread safety: a pure function.
#pragma once

#include <cstdint>

#include "tui/snapshot.hpp"

namespace strobe::tui {

struct ViewState {
  SnapshotOptions view;
  uint64_t window_ns = 5'000'000'000;  // the window `w` switches to
};

enum class KeyEffect { kNone, kRedraw, kQuit };

// Applies one key (a character, as curses returns it) to `v`.
KeyEffect applyKey(int key, ViewState& v);

// The help line the interactive view shows under its table.
const char* keysHelp();

}  // namespace strobe::tui
