#include "base/keep_until_exit.hpp"

#include <mutex>
#include <vector>

namespace strobe {
namespace {

std::mutex kept_mutex;
// Never freed (that is the point); a global pointer keeps it reachable.
std::vector<std::shared_ptr<void>>* kept = nullptr;

}  // namespace

void keepUntilExit(std::shared_ptr<void> object) {
  std::lock_guard<std::mutex> lock(kept_mutex);
  if (kept == nullptr) kept = new std::vector<std::shared_ptr<void>>;
  kept->push_back(std::move(object));
}

}  // namespace strobe
