#include "model/completeness.hpp"

#include <array>
#include <vector>

namespace strobe::model {

bool isThreadEntry(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kEntries = {"_start",
                                                                "__libc_start_main",
                                                                "__libc_start_call_main",
                                                                "__libc_start_main_impl",
                                                                "start_thread",
                                                                "clone",
                                                                "__clone",
                                                                "clone3",
                                                                "__clone3",
                                                                "__clone_internal"};
  for (std::string_view e : kEntries) {
    if (name == e) return true;
  }
  return false;
}

StackCompleteness stackCompleteness(const Profile& p) {
  // Per location: is it (any of its inline levels) an entry function?
  std::vector<uint8_t> entry_loc(p.locations().size(), 0);
  for (size_t i = 0; i < p.locations().size(); ++i) {
    for (const Line& l : p.locations()[i].lines) {
      if (l.function != kNone && l.function < p.functions().size() &&
          isThreadEntry(p.str(p.functions()[l.function].name))) {
        entry_loc[i] = 1;
      }
    }
  }
  // Per stack node: an entry frame at it or above it. Parents have lower ids.
  const auto& stacks = p.stacks();
  std::vector<uint8_t> reaches(stacks.size(), 0);
  for (size_t s = 0; s < stacks.size(); ++s) {
    const StackNode& n = stacks[s];
    bool here = n.location < entry_loc.size() && entry_loc[n.location] != 0;
    bool above = n.parent != kNone && n.parent < s && reaches[n.parent] != 0;
    reaches[s] = here || above ? 1 : 0;
  }
  StackCompleteness c;
  for (const Sample& x : p.samples()) {
    ++c.samples;
    switch (x.stack_end) {
      case StackEnd::kEntry:
        ++c.reached;
        break;
      case StackEnd::kStackCopy:
        ++c.stack_copy;
        break;
      case StackEnd::kNoCfi:
        ++c.no_cfi;
        break;
      case StackEnd::kBadFrame:
        ++c.bad_frame;
        break;
      case StackEnd::kNotJudged:
      case StackEnd::kSpliced:
        if (x.stack != kNone && x.stack < reaches.size() && reaches[x.stack] != 0) {
          ++c.reached;
        } else {
          ++c.ended;
        }
        break;
    }
  }
  return c;
}

}  // namespace strobe::model
