#include "cli/call_graph.hpp"

#include <charconv>
#include <string>

namespace strobe::cli {

Result<CallGraph> parseCallGraph(std::string_view mode) {
  CallGraph g;
  if (mode == "fp") return g;
  if (mode == "none") {
    g.callchain = false;
    return g;
  }
  std::string_view name = mode.substr(0, mode.find(','));
  if (name != "dwarf" && name != "auto") {
    return makeError("unknown call graph mode '" + std::string(mode) + "'",
                     "use -g fp, -g dwarf[,BYTES], -g auto or -g none", ErrorKind::kUsage);
  }
  g.unwind_auto = name == "auto";
  g.stack_copy = kDefaultStackCopy;
  if (name.size() < mode.size()) {
    std::string_view bytes = mode.substr(name.size() + 1);
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), v);
    if (ec != std::errc() || end != bytes.data() + bytes.size() || bytes.empty() || v == 0 ||
        v > kMaxStackCopy || v % 8 != 0) {
      return makeError("-g " + std::string(mode) +
                           ": the stack copy size must be a multiple of 8 " + "from 8 to " +
                           std::to_string(kMaxStackCopy) + " bytes",
                       "e.g. -g " + std::string(name) + "," + std::to_string(kDefaultStackCopy * 2),
                       ErrorKind::kUsage);
    }
    g.stack_copy = static_cast<uint32_t>(v);
  }
  return g;
}

}  // namespace strobe::cli
