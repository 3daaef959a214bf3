#include "output/text_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

namespace strobe::output {
namespace {

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

size_t terminalWidth(std::FILE* out) {
  int fd = out != nullptr ? ::fileno(out) : -1;
  if (fd < 0 || ::isatty(fd) == 0) return kNoWidthLimit;
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return kNoWidthLimit;
  return ws.ws_col;
}

std::string fitMiddle(std::string_view s, size_t width) {
  if (width == kNoWidthLimit || s.size() <= width) return std::string(s);
  if (width < 5) width = 5;
  // A third of what is kept from the start, two thirds from the end: the
  // end tells functions apart (the member, the lambda's number, the
  // parameters).
  const size_t keep = width - 3;
  size_t head = keep / 3;
  size_t tail_at = s.size() - (keep - head);
  while (head > 0 && continuation(s[head])) --head;
  while (tail_at < s.size() && continuation(s[tail_at])) ++tail_at;
  std::string out(s.substr(0, head));
  out += "...";
  out += s.substr(tail_at);
  return out;
}

}  // namespace strobe::output
