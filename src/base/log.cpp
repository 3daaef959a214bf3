#include "base/log.hpp"

#include <unistd.h>

#include <string>

#include "base/terminal_text.hpp"

namespace strobe {
namespace {

void emit(std::string_view kind, std::string_view message, std::string_view hint) {
  std::string line = "strobe: ";
  line += kind;
  // Messages quote names and paths from the profiled program: no control
  // character reaches the terminal.
  line += terminalSafe(message);
  line += '\n';
  if (!hint.empty()) {
    line += "  hint: ";
    line += terminalSafe(hint);
    line += '\n';
  }
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void logError(std::string_view message, std::string_view hint) {
  emit("error: ", message, hint);
}
void logWarning(std::string_view message, std::string_view hint) {
  emit("warning: ", message, hint);
}
void logInfo(std::string_view message) {
  emit("", message, {});
}

}  // namespace strobe
