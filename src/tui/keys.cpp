#include "tui/keys.hpp"

namespace strobe::tui {

KeyEffect applyKey(int key, ViewState& v) {
  auto group = [&](model::GroupBy by) {
    if (v.view.by == by) return KeyEffect::kNone;
    v.view.by = by;
    return KeyEffect::kRedraw;
  };
  switch (key) {
    case 'q':
    case 'Q':
      return KeyEffect::kQuit;
    case 'f':
      return group(model::GroupBy::kFunction);
    case 'l':
      return group(model::GroupBy::kLine);
    case 'm':
      return group(model::GroupBy::kModule);
    case 't':
      return group(model::GroupBy::kThread);
    case 'w':
      v.view.window_ns = v.view.window_ns == 0 ? v.window_ns : 0;
      return KeyEffect::kRedraw;
    case '+':
    case '=':
      ++v.view.top;
      return KeyEffect::kRedraw;
    case '-':
      if (v.view.top <= 1) return KeyEffect::kNone;
      --v.view.top;
      return KeyEffect::kRedraw;
    default:
      return KeyEffect::kNone;
  }
}

const char* keysHelp() {
  return "q quit  f function  l line  m module  t thread  w cumulative/window  +/- rows";
}

}  // namespace strobe::tui
