// Parsing `-g/--call-graph MODE`: fp, dwarf[,BYTES], auto[,BYTES], none.
// Pure; errors are kUsage with the exact text the CLI prints.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.hpp"

namespace strobe::cli {

// Bytes of user stack copied per sample by default (docs/USAGE.md says why).
inline constexpr uint32_t kDefaultStackCopy = 16384;
// The largest copy: the sample record's 16-bit size must also hold the rest.
inline constexpr uint32_t kMaxStackCopy = 65528;

struct CallGraph {
  bool callchain = true;     // the kernel's frame-pointer chain
  uint32_t stack_copy = 0;   // dwarf / auto: stack bytes per sample
  bool unwind_auto = false;  // auto
};

Result<CallGraph> parseCallGraph(std::string_view mode);

}  // namespace strobe::cli
