// CursesScreen::check, apart: <term.h> defines macros (lines, columns, ...)
// that would clash with the drawing code.
// (strobe's headers first, before the macros exist)
#include "tui/curses_screen.hpp"

#include <curses.h>
#include <term.h>
#include <unistd.h>

namespace strobe::tui {

Status CursesScreen::check() {
  int err = 0;
  TERMINAL* saved = cur_term;
  if (setupterm(nullptr, STDOUT_FILENO, &err) != OK) return unusable();
  del_curterm(set_curterm(saved));
  return {};
}

}  // namespace strobe::tui
