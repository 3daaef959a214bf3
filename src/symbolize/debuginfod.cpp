#include "symbolize/debuginfod.hpp"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

namespace strobe::symbolize {
namespace {

// libdebuginfod pulls in libcurl; it is loaded only when asked for (as libdw
// does), so neither strobe nor a program preloading libstrobe maps it
// otherwise.
struct Library {
  decltype(&::debuginfod_begin) begin = nullptr;
  decltype(&::debuginfod_find_debuginfo) find = nullptr;
  debuginfod_client* client = nullptr;
};

Library* load() {
  static Library lib;
  static bool tried = false;
  if (tried) return lib.client != nullptr ? &lib : nullptr;
  tried = true;
  void* h = ::dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return nullptr;
  lib.begin = reinterpret_cast<decltype(lib.begin)>(::dlsym(h, "debuginfod_begin"));
  lib.find = reinterpret_cast<decltype(lib.find)>(::dlsym(h, "debuginfod_find_debuginfo"));
  if (lib.begin == nullptr || lib.find == nullptr) return nullptr;
  lib.client = lib.begin();
  return lib.client != nullptr ? &lib : nullptr;
}

}  // namespace

std::optional<std::string> debuginfodDebugFile(const std::string& build_id) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if (urls == nullptr || *urls == '\0' || build_id.empty()) return std::nullopt;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  Library* lib = load();
  if (lib == nullptr) return std::nullopt;
  char* path = nullptr;
  // build_id_len 0: the id is given as a hex string.
  int fd =
      lib->find(lib->client, reinterpret_cast<const unsigned char*>(build_id.c_str()), 0, &path);
  if (fd < 0) return std::nullopt;
  ::close(fd);
  std::optional<std::string> out;
  if (path != nullptr) out = std::string(path);
  std::free(path);
  return out;
}

}  // namespace strobe::symbolize
