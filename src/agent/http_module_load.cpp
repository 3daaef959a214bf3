// Finds and loads strobe-agent-http.so (http_module.hpp).
#include <dlfcn.h>
#include <unistd.h>

#include <mutex>

#include "agent/http_module.hpp"

#ifndef STROBE_AGENT_HTTP_DIR
#define STROBE_AGENT_HTTP_DIR "../lib/strobe"
#endif

namespace strobe::agent {
namespace {

std::string executableDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string path(buf, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

Result<const HttpModule*> load() {
  const std::string dir = executableDir();
  const std::string candidates[] = {
      dir + "/" + kHttpModuleFile,
      dir + "/" + STROBE_AGENT_HTTP_DIR + "/" + kHttpModuleFile,
  };
  std::string tried;
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), F_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path + " (absent)";
      continue;
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      tried += (tried.empty() ? "" : ", ") + path + " (" + (why != nullptr ? why : "?") + ")";
      continue;
    }
    using Entry = const HttpModule* (*)();
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, kHttpModuleSymbol));
    const HttpModule* m = entry != nullptr ? entry() : nullptr;
    if (m == nullptr || m->version != kHttpModuleVersion) {
      tried += (tried.empty() ? "" : ", ") + path + " (not this strobe's module)";
      ::dlclose(handle);
      continue;
    }
    return m;  // never unloaded: its server threads may outlive any caller
  }
  return makeError("strobe agent cannot load its HTTP module: tried " + tried,
                   "reinstall strobe: its package puts " + std::string(kHttpModuleFile) + " in " +
                       STROBE_AGENT_HTTP_DIR + " from the strobe executable",
                   ErrorKind::kGeneric);
}

}  // namespace

Result<const HttpModule*> httpModule() {
  static std::once_flag once;
  static Result<const HttpModule*>* loaded = nullptr;
  std::call_once(once, [] { loaded = new Result<const HttpModule*>(load()); });
  return *loaded;
}

}  // namespace strobe::agent
