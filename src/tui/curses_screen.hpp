// The interactive screen of `strobe top`, drawn with ncurses: the snapshot's
// header line, its table cut to the terminal's size, and a line of keys.
// open() takes over the terminal (no echo, no line buffering, keys read
// without waiting); the destructor gives it back as it was. curses itself
// stays inside curses_screen.cpp and terminal_check.cpp (its macros clash
// with ordinary names).
// Owns: the curses screen. Thread safety: one screen per process, used
// from one thread.
#pragma once

#include <memory>

#include "base/result.hpp"
#include "tui/snapshot.hpp"

namespace strobe::tui {

class CursesScreen {
 public:
  // Whether the terminal on stdout can be driven (a known TERM), without
  // taking it over: kUnsupported when not.
  static Status check();
  // Fails (kUnsupported) when the terminal cannot be driven.
  static Result<std::unique_ptr<CursesScreen>> open();
  ~CursesScreen();
  CursesScreen(const CursesScreen&) = delete;
  CursesScreen& operator=(const CursesScreen&) = delete;

  // The next key pressed, or -1 when none is waiting. A resized terminal
  // reads as kResized.
  int readKey();
  static constexpr int kResized = 0x10000;

  // Draws the snapshot (rows that do not fit are left out); `help` goes on
  // the last line.
  void draw(const Snapshot& s, const char* help);
  // Table rows that fit on the screen below the header and above the help.
  size_t rowsThatFit() const;

 private:
  CursesScreen() = default;
  static Error unusable();
  void* screen_ = nullptr;  // SCREEN*
};

}  // namespace strobe::tui
