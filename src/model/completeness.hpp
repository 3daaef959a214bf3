// Stack completeness: how many samples' call stacks reach the thread's
// entry, and why the others end early. Feeds the one-line summary every
// report prints (output/stack_completeness.hpp).
//
// A sample reached its thread's entry when
//   - the recorder's unwinder says so (StackEnd::kEntry: the CFI marked the
//     return address undefined, as _start and clone3 do, or it read 0), or
//   - it was not judged while recording (kNotJudged: -g fp / none; kSpliced:
//     the frame-pointer chain finished it) and one of its frames is in an
//     entry function: _start, __libc_start_main, __libc_start_call_main,
//     start_thread, clone, clone3 (and their __-prefixed aliases). This needs
//     symbolized locations; unsymbolized ones never count as an entry.
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.hpp"

namespace strobe::model {

struct StackCompleteness {
  uint64_t samples = 0;
  uint64_t reached = 0;     // reached the thread's entry
  uint64_t stack_copy = 0;  // truncated at the end of the stack copy
  uint64_t no_cfi = 0;      // truncated: no unwind information
  uint64_t bad_frame = 0;   // truncated: unmapped code or an inconsistent frame
  uint64_t ended = 0;       // not judged while recording and no entry function on the stack
};

StackCompleteness stackCompleteness(const Profile& p);

// Whether `name` (a function's name as symbolized) is a thread entry.
bool isThreadEntry(std::string_view name);

}  // namespace strobe::model
