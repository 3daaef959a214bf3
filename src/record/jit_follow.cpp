#include "record/jit_follow.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>

namespace strobe::record {
namespace {

constexpr uint64_t kPollNs = 100'000'000;

}  // namespace

JitFollow::~JitFollow() {
  if (dir_.empty()) return;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink((dir_ + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir_.c_str());
}

std::string JitFollow::launchEnvironment() {
  if (std::getenv(kJitdumpEnv) != nullptr) return {};  // the user's choice stands
  const char* tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/strobe-jit-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) return {};  // then the command writes no jitdump
  dir_ = templ;
  return std::string(kJitdumpEnv) + "=" + dir_;
}

void JitFollow::follow(Converter& c) {
  for (const Converter::JitdumpMarker& m : c.takeJitdumpMarkers()) {
    files_.followJitdump(m.pid, m.path);
  }
}

void JitFollow::poll(model::Profile& p, Converter& c, uint64_t now_ns) {
  if (now_ns < next_poll_ns_) return;
  next_poll_ns_ = now_ns + kPollNs;
  follow(c);
  files_.poll(p, now_ns);
}

void JitFollow::finish(model::Profile& p, Converter& c, uint64_t now_ns,
                       std::vector<std::string>& warnings) {
  follow(c);
  files_.finish(p, now_ns);
  for (std::string& w : files_.takeWarnings()) warnings.push_back(std::move(w));
}

}  // namespace strobe::record
