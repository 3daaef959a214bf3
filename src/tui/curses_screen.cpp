#include "tui/curses_screen.hpp"

#include <curses.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tui/text_view.hpp"

namespace strobe::tui {

Error CursesScreen::unusable() {
  const char* term = std::getenv("TERM");
  return makeError(
      std::string("cannot drive the terminal (TERM=") + (term != nullptr ? term : "") + ")",
      "set TERM to your terminal's type, or use --batch", ErrorKind::kUnsupported);
}

Result<std::unique_ptr<CursesScreen>> CursesScreen::open() {
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) return unusable();
  set_term(screen);
  cbreak();
  noecho();
  nodelay(stdscr, TRUE);
  keypad(stdscr, TRUE);
  curs_set(0);
  std::unique_ptr<CursesScreen> s(new CursesScreen());
  s->screen_ = screen;
  return s;
}

CursesScreen::~CursesScreen() {
  endwin();
  delscreen(static_cast<SCREEN*>(screen_));
  std::fflush(stdout);
}

int CursesScreen::readKey() {
  int c = getch();
  if (c == ERR) return -1;
  if (c == KEY_RESIZE) return kResized;
  return c;
}

size_t CursesScreen::rowsThatFit() const {
  // Header, blank, headings, rows..., blank, help.
  return LINES > 5 ? static_cast<size_t>(LINES - 5) : 1;
}

void CursesScreen::draw(const Snapshot& s, const char* help) {
  erase();
  const int width = COLS;
  attron(A_BOLD);
  mvaddnstr(0, 0, headerLine(s).c_str(), width);
  attroff(A_BOLD);
  std::vector<std::string> lines = tableLines(s, width > 0 ? static_cast<size_t>(width) : 80);
  int y = 2;
  for (size_t i = 0; i < lines.size() && y < LINES - 2; ++i, ++y) {
    if (i == 0) attron(A_REVERSE);
    std::string line = lines[i];
    if (i == 0 && static_cast<int>(line.size()) < width) line.resize(width, ' ');
    mvaddnstr(y, 0, line.c_str(), width);
    if (i == 0) attroff(A_REVERSE);
  }
  mvaddnstr(LINES - 1, 0, help, width);
  refresh();
}

}  // namespace strobe::tui
