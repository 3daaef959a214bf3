// PushQueue: the profiles waiting to be pushed, bounded. When the backend
// is down the agent keeps recording and queueing; once `capacity` profiles
// wait, each new one drops the oldest (counted), so memory stays bounded
// however long the outage lasts. The session's thread adds; the pusher's
// thread takes the oldest, and removes it once the backend accepted it.
// Thread safety: every member may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace strobe::agent {

struct Push {
  std::string body;        // gzipped pprof
  uint64_t from_unix = 0;  // seconds since the epoch
  uint64_t until_unix = 0;
};

class PushQueue {
 public:
  explicit PushQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Adds `p`; returns the profile dropped to make room, if one was.
  std::optional<Push> add(Push p);
  // A copy of the oldest profile, waiting up to `wait` for one; nullopt on
  // timeout or after stop().
  std::optional<Push> front(std::chrono::milliseconds wait);
  // Removes the oldest profile if it is still the one that covers
  // [from, until) (it may have been dropped meanwhile).
  void popIf(uint64_t from_unix, uint64_t until_unix);
  // Wakes front() and makes it return nullopt from now on.
  void stop();
  // Waits up to `d` unless stop() is called; false once stopped.
  bool sleepFor(std::chrono::milliseconds d);

  size_t size() const;
  uint64_t dropped() const;
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Push> queue_;
  uint64_t dropped_ = 0;
  bool stopped_ = false;
};

}  // namespace strobe::agent
