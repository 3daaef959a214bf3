// Windows: the profiles HTTP clients are waiting for (GET
// /debug/pprof/profile?seconds=N). Each request opens its own window from
// the time it arrived to N seconds later, so any number of scrapers can
// collect at once, each its own profile; at most kMaxOpenWindows are open
// (each holds samples in memory until it closes). The session's thread takes
// the windows whose end the recording has reached, answers them, and asks
// for the earliest start still open (what a compaction must keep).
// Times are CLOCK_MONOTONIC ns.
// Thread safety: every member may be called from any thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace strobe::agent {

inline constexpr size_t kMaxOpenWindows = 16;

// Which samples a window (or a push) holds besides its time range.
struct Selection {
  pid_t pid = 0;     // 0: every process
  std::string comm;  // "": every process; else the process's name (its main thread's)
};

struct Window {
  uint64_t since_ns = 0;  // CLOCK_MONOTONIC
  uint64_t until_ns = 0;
  Selection selection;
  std::promise<Result<std::string>> reply;  // the gzipped pprof profile, or why not
};

class Windows {
 public:
  // Opens a window; its future is fulfilled once the window is answered.
  // kGeneric error when kMaxOpenWindows are open already.
  Result<std::future<Result<std::string>>> open(uint64_t since_ns, uint64_t until_ns,
                                                Selection selection);
  // The windows whose until_ns <= complete_ns, removed from the book.
  std::vector<std::unique_ptr<Window>> takeDue(uint64_t complete_ns);
  // The earliest since_ns of the open windows; UINT64_MAX when none.
  uint64_t earliestSince() const;
  size_t openCount() const;
  // Answers every open window with `e` and refuses new ones (the session ended).
  void closeAll(const Error& e);

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Window>> open_;
  bool closed_ = false;
};

}  // namespace strobe::agent
