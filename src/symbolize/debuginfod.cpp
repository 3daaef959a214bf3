#include "symbolize/debuginfod.hpp"

#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

namespace strobe::symbolize {

std::optional<std::string> debuginfodDebugFile(const std::string& build_id) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if (urls == nullptr || *urls == '\0' || build_id.empty()) return std::nullopt;
  static std::mutex mu;
  static debuginfod_client* client = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (client == nullptr) client = ::debuginfod_begin();
  if (client == nullptr) return std::nullopt;
  char* path = nullptr;
  // build_id_len 0: the id is given as a hex string.
  int fd = ::debuginfod_find_debuginfo(
      client, reinterpret_cast<const unsigned char*>(build_id.c_str()), 0, &path);
  if (fd < 0) return std::nullopt;
  ::close(fd);
  std::optional<std::string> out;
  if (path != nullptr) out = std::string(path);
  std::free(path);
  return out;
}

}  // namespace strobe::symbolize
