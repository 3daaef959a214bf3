#include "base/background_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace strobe {

BackgroundWriter::BackgroundWriter(int fd) : fd_(fd) {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread: push() writes in place.
  }
}

BackgroundWriter::~BackgroundWriter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

bool BackgroundWriter::push(TextBuffer& buf) {
  if (!thread_.joinable()) {
    if (error_ == 0 && !buf.empty()) error_ = writeOut(buf);
    buf.clear();
    if (error_ != 0) errno = error_;
    return error_ == 0;
  }
  {
    std::unique_lock lock(m_);
    done_.wait(lock, [&] { return error_ != 0 || queue_.size() < kMaxQueued; });
    if (error_ != 0) {
      errno = error_;
      return false;
    }
    if (buf.empty()) return true;
    queue_.push_back(std::move(buf));
    if (spare_.empty()) {
      buf = TextBuffer();
    } else {
      buf = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  buf.clear();
  work_.notify_one();
  return true;
}

bool BackgroundWriter::drain() {
  std::unique_lock lock(m_);
  done_.wait(lock, [&] { return queue_.empty(); });
  if (error_ != 0) errno = error_;
  return error_ == 0;
}

void BackgroundWriter::run() {
  std::unique_lock lock(m_);
  while (true) {
    work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and all written
    // The front buffer stays in the queue while it is written: push() only
    // appends, which leaves it in place.
    TextBuffer& buf = queue_.front();
    const bool failed = error_ != 0;
    lock.unlock();
    const int err = failed ? 0 : writeOut(buf);
    lock.lock();
    if (err != 0) error_ = err;
    buf.clear();
    spare_.push_back(std::move(buf));
    queue_.pop_front();
    done_.notify_all();
  }
}

int BackgroundWriter::writeOut(const TextBuffer& buf) const {
  for (size_t at = 0; at < buf.size();) {
    const ssize_t n = ::write(fd_, buf.data() + at, buf.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    at += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace strobe
