// Frames strobe adds to a stack where it knows more than the sampled
// addresses say, each a location with its one line already set (so the
// symbolizer leaves it alone) and a name in brackets:
//   [kernel]          time in the kernel, on top of the user stack that
//                     entered it (kernel time sampled without -k: the
//                     kernel's own frames are not recorded). Module "[kernel]".
//   [missing caller]  under -g fp, between a sampled function that had not
//                     set up its frame pointer (a leaf built without one, or
//                     a pc in a prologue or epilogue) and the next frame of
//                     the kernel's frame-pointer walk, which skipped at least
//                     the sampled function's caller. No module.
// Both are interned on first use: a Profile holds at most one of each.
// Thread safety: as Profile (one writer). No I/O.
#pragma once

#include <string_view>

#include "model/profile.hpp"

namespace strobe::model {

inline constexpr std::string_view kKernelFrameName = "[kernel]";
inline constexpr std::string_view kMissingCallerName = "[missing caller]";

// The module path of the [kernel] frame.
inline constexpr std::string_view kKernelTimeModule = "[kernel]";

LocationId kernelTimeLocation(Profile& p);
LocationId missingCallerLocation(Profile& p);

// Whether a function name is one of the frames above.
inline bool isSyntheticFrameName(std::string_view name) {
  return name == kKernelFrameName || name == kMissingCallerName;
}

}  // namespace strobe::model
