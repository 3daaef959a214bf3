#include "model/completeness.hpp"

#include <array>
#include <vector>

#include "model/synthetic_frames.hpp"

namespace strobe::model {

bool isThreadEntry(std::string_view name) {
  // "__libc_start_main@@GLIBC_2.34": the symbol version is no part of the name.
  if (size_t at = name.find('@'); at != std::string_view::npos && at > 0) {
    name = name.substr(0, at);
  }
  static constexpr std::array<std::string_view, 17> kEntries = {
      // glibc: the main thread's and every other thread's outermost frames.
      "_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
      "start_thread", "clone", "__clone", "clone3", "__clone3", "__clone_internal",
      // Go: the bottom of every goroutine, the main goroutine, every M.
      "runtime.goexit", "runtime.main", "runtime.mstart", "runtime.mstart0", "runtime.rt0_go",
      // Linux kernel threads (-k).
      "ret_from_fork", "ret_from_fork_asm"};
  for (std::string_view e : kEntries) {
    if (name == e) return true;
  }
  // Rust: std's thread start, whose module path changed across releases
  // (std::sys::unix::thread, std::sys::pal::unix::thread, ...).
  static constexpr std::string_view kRustThreadStart = "::thread::Thread::new::thread_start";
  return name.starts_with("std::sys") && name.ends_with(kRustThreadStart);
}

StackCompleteness stackCompleteness(const Profile& p) {
  // Per location: is it (any of its inline levels) an entry function, or
  // one of the synthetic frames?
  enum : uint8_t { kPlain = 0, kEntry = 1, kMissing = 2, kKernel = 3 };
  std::vector<uint8_t> kind(p.locations().size(), kPlain);
  for (size_t i = 0; i < p.locations().size(); ++i) {
    for (const Line& l : p.locations()[i].lines) {
      if (l.function == kNone || l.function >= p.functions().size()) continue;
      std::string_view name = p.str(p.functions()[l.function].name);
      if (name == kMissingCallerName) {
        kind[i] = kMissing;
      } else if (name == kKernelFrameName) {
        kind[i] = kKernel;
      } else if (isThreadEntry(name) && kind[i] == kPlain) {
        kind[i] = kEntry;
      }
    }
  }
  // Per stack node, from its root to it: an entry frame, a missing caller.
  // Parents have lower ids.
  const auto& stacks = p.stacks();
  std::vector<uint8_t> entry(stacks.size(), 0);
  std::vector<uint8_t> missing(stacks.size(), 0);
  for (size_t s = 0; s < stacks.size(); ++s) {
    const StackNode& n = stacks[s];
    const uint8_t k = n.location < kind.size() ? kind[n.location] : static_cast<uint8_t>(kPlain);
    const bool has_parent = n.parent != kNone && n.parent < s;
    // [kernel] as the root-most frame: a stack with no user part.
    entry[s] = k == kEntry || (k == kKernel && !has_parent) || (has_parent && entry[n.parent]);
    missing[s] = k == kMissing || (has_parent && missing[n.parent]);
  }
  StackCompleteness c;
  for (const Sample& x : p.samples()) {
    if (x.stack == kNone) {
      c.no_stack += x.weight;
      continue;
    }
    c.total += x.weight;
    const bool known = x.stack < stacks.size();
    if (known && missing[x.stack]) {
      c.missing_caller += x.weight;
      continue;
    }
    if (known && entry[x.stack]) {
      c.reached += x.weight;
      continue;
    }
    switch (x.stack_end) {
      case StackEnd::kEntry:
        c.unknown_entry += x.weight;
        break;
      case StackEnd::kStackCopy:
        c.stack_copy += x.weight;
        break;
      case StackEnd::kNoCfi:
        c.no_cfi += x.weight;
        break;
      case StackEnd::kBadFrame:
        c.bad_frame += x.weight;
        break;
      case StackEnd::kNotJudged:
      case StackEnd::kSpliced:
        c.ended += x.weight;
        break;
    }
  }
  return c;
}

}  // namespace strobe::model
