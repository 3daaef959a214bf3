// BackgroundWriter: writes buffers to a file descriptor, in the order they
// come, on a thread of its own, so that the caller goes on filling the next
// buffer while the kernel copies the last one.
//
// Why: `strobe symbolize` writes ~17 MB of answers for 20,000 addresses;
// writing them to a file took ~4 ms of kernel copying on the answering
// thread, an eighth of a run (docs/BENCHMARKS.md).
//
// push() hands over a filled buffer and gives back an empty one (buffers are
// reused, their memory stays faulted in); it waits while kMaxQueued buffers
// are queued, so a slow reader bounds the memory. drain() waits until all is
// written: a program driving strobe through a pipe must get the answers
// before strobe reads its next line. The first failed write (errno) is kept:
// push() and drain() then return false with errno set to it, and nothing more
// is written. When no thread can be started, push() writes in place.
// Thread safety: push() and drain() from one thread at a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/text_buffer.hpp"

namespace strobe {

class BackgroundWriter {
 public:
  static constexpr size_t kMaxQueued = 4;

  // Borrows `fd`, which must outlive the writer.
  explicit BackgroundWriter(int fd);
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queues `buf` for writing (an empty one is skipped) and leaves an empty
  // buffer in its place; false when a write has failed.
  bool push(TextBuffer& buf);
  // Waits until every queued buffer is written; false when a write failed.
  bool drain();

 private:
  void run();
  // Writes all of `buf`; 0, or the errno of the failed write.
  int writeOut(const TextBuffer& buf) const;

  int fd_;
  std::mutex m_;
  std::condition_variable work_;  // the writer waits for buffers or stop_
  std::condition_variable done_;  // push() and drain() wait for room or an empty queue
  std::deque<TextBuffer> queue_;  // the front one is being written
  std::vector<TextBuffer> spare_;
  bool stop_ = false;
  int error_ = 0;
  std::thread thread_;  // not joinable: push() writes in place
};

}  // namespace strobe
