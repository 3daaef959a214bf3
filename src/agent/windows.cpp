#include "agent/windows.hpp"

#include <algorithm>

namespace strobe::agent {

Result<std::future<Result<std::string>>> Windows::open(uint64_t since_ns, uint64_t until_ns,
                                                       Selection selection) {
  std::lock_guard lock(mu_);
  if (closed_) {
    return makeError("the agent is stopping", "try again once it runs", ErrorKind::kGeneric);
  }
  if (open_.size() >= kMaxOpenWindows) {
    return makeError(std::to_string(kMaxOpenWindows) + " profiles are being taken already",
                     "try again when one is done", ErrorKind::kGeneric);
  }
  auto w = std::make_unique<Window>();
  w->since_ns = since_ns;
  w->until_ns = until_ns;
  w->selection = std::move(selection);
  auto future = w->reply.get_future();
  open_.push_back(std::move(w));
  return future;
}

std::vector<std::unique_ptr<Window>> Windows::takeDue(uint64_t complete_ns) {
  std::lock_guard lock(mu_);
  std::vector<std::unique_ptr<Window>> due;
  auto it = std::stable_partition(open_.begin(), open_.end(),
                                  [&](const auto& w) { return w->until_ns > complete_ns; });
  for (auto d = it; d != open_.end(); ++d) due.push_back(std::move(*d));
  open_.erase(it, open_.end());
  return due;
}

uint64_t Windows::earliestSince() const {
  std::lock_guard lock(mu_);
  uint64_t earliest = UINT64_MAX;
  for (const auto& w : open_) earliest = std::min(earliest, w->since_ns);
  return earliest;
}

size_t Windows::openCount() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

void Windows::closeAll(const Error& e) {
  std::lock_guard lock(mu_);
  closed_ = true;
  for (auto& w : open_) w->reply.set_value(Result<std::string>(e));
  open_.clear();
}

}  // namespace strobe::agent
