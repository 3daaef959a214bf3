// Source files read on demand, once each, for their lines: `strobe
// annotate` prints lines between instructions, `strobe report -f html`
// embeds the hottest functions' lines. Only regular files up to 16 MiB are
// read (a FIFO or device named as a source must not hang or flood the
// output); a file that cannot be read is remembered as such.
//
// Thread safety: none; one instance per command.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strobe::cli {

class SourceFiles {
 public:
  // Line n (1-based) of `file`, without its line end; nullopt when the file
  // cannot be read or has no such line.
  std::optional<std::string> line(const std::string& file, uint32_t n);
  // Every line of `file`; nullptr when it cannot be read.
  const std::vector<std::string>* lines(const std::string& file);

 private:
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

}  // namespace strobe::cli
