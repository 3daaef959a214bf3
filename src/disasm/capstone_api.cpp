#include "disasm/capstone_api.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace strobe::disasm {
namespace {

Result<CapstoneApi> load() {
  const std::string soname = "libcapstone.so." + std::to_string(CS_API_MAJOR);
  void* h = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = ::dlerror();
    return makeError(
        "cannot disassemble: " + soname + " cannot be loaded (" +
            (why != nullptr ? why : "unknown") + ")",
        "install capstone's library: apt-get install libcapstone" + std::to_string(CS_API_MAJOR),
        ErrorKind::kUnsupported);
  }
  CapstoneApi api;
  bool ok = true;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
    ok = ok && fn != nullptr;
  };
  bind(api.open, "cs_open");
  bind(api.close, "cs_close");
  bind(api.option, "cs_option");
  bind(api.malloc, "cs_malloc");
  bind(api.free, "cs_free");
  bind(api.disasm_iter, "cs_disasm_iter");
  bind(api.strerror, "cs_strerror");
  if (!ok) {
    return makeError(
        "cannot disassemble: " + soname + " lacks capstone's functions",
        "reinstall it: apt-get install --reinstall libcapstone" + std::to_string(CS_API_MAJOR),
        ErrorKind::kUnsupported);
  }
  return api;
}

}  // namespace

Result<const CapstoneApi*> capstone() {
  static const Result<CapstoneApi> api = load();
  if (!api.ok()) return api.error();
  return &*api;
}

}  // namespace strobe::disasm
