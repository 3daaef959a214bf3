#include "agent/push_queue.hpp"

namespace strobe::agent {

std::optional<Push> PushQueue::add(Push p) {
  std::optional<Push> dropped;
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_) {
      dropped = std::move(queue_.front());
      queue_.pop_front();
      ++dropped_;
    }
    queue_.push_back(std::move(p));
  }
  cv_.notify_all();
  return dropped;
}

std::optional<Push> PushQueue::front(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, wait, [&] { return stopped_ || !queue_.empty(); });
  if (stopped_ || queue_.empty()) return std::nullopt;
  return queue_.front();
}

void PushQueue::popIf(uint64_t from_unix, uint64_t until_unix) {
  std::lock_guard lock(mu_);
  if (!queue_.empty() && queue_.front().from_unix == from_unix &&
      queue_.front().until_unix == until_unix) {
    queue_.pop_front();
  }
}

void PushQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

bool PushQueue::sleepFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stopped_; });
  return !stopped_;
}

size_t PushQueue::size() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

uint64_t PushQueue::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace strobe::agent
