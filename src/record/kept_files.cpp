#include "record/kept_files.hpp"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include "model/module_path.hpp"
#include "record/proc.hpp"

namespace strobe::record {

std::string KeptFiles::key(const std::string& path, const std::string& build_id) {
  std::string k = path;
  k.push_back('\0');
  k += build_id;
  return k;
}

Fd KeptFiles::openVdso() const {
  const auto base = static_cast<uintptr_t>(::getauxval(AT_SYSINFO_EHDR));
  if (base == 0) return {};
  auto maps = readMaps(::getpid());
  if (!maps) return {};
  for (const ProcMapping& m : *maps) {
    if (m.path != "[vdso]" || m.start != base) continue;
    Fd fd(::memfd_create("strobe-vdso", MFD_CLOEXEC));
    if (!fd.valid()) return {};
    const auto* bytes = reinterpret_cast<const char*>(base);
    size_t size = m.end - m.start;
    for (size_t done = 0; done < size;) {
      ssize_t n = ::write(fd.get(), bytes + done, size - done);
      if (n <= 0) return {};
      done += static_cast<size_t>(n);
    }
    return fd;
  }
  return {};
}

void KeptFiles::onMapping(int32_t pid, uint64_t start, uint64_t end, const std::string& path,
                          const std::string& build_id) {
  const bool vdso = path == "[vdso]";
  if (!vdso && !model::isFileBacked(path)) return;
  std::string k = key(path, build_id);
  auto it = files_.find(k);
  if (it == files_.end()) {
    if (files_.size() >= max_files_) return;
    it = files_.try_emplace(k).first;
    if (vdso) {
      it->second.fd = openVdso();
      return;
    }
    char link[96];
    std::snprintf(link, sizeof link, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
    it->second.fd = Fd(::open(link, O_RDONLY | O_CLOEXEC));
  }
  if (vdso) return;
  std::vector<const std::string*>& keys = keys_of_[pid];
  if (std::find(keys.begin(), keys.end(), &it->first) != keys.end()) return;
  ++it->second.users;
  keys.push_back(&it->first);
}

void KeptFiles::forgetProcess(int32_t pid) {
  auto of = keys_of_.find(pid);
  if (of == keys_of_.end()) return;
  for (const std::string* k : of->second) {
    auto it = files_.find(*k);
    if (--it->second.users == 0) files_.erase(it);
  }
  keys_of_.erase(of);
}

std::string KeptFiles::pathFor(const std::string& path, const std::string& build_id) const {
  auto it = files_.find(key(path, build_id));
  if (it == files_.end() || !it->second.fd.valid()) return {};
  return "/proc/self/fd/" + std::to_string(it->second.fd.get());
}

Fd KeptFiles::dupFor(const std::string& path, const std::string& build_id) const {
  auto it = files_.find(key(path, build_id));
  if (it == files_.end() || !it->second.fd.valid()) return {};
  return Fd(::fcntl(it->second.fd.get(), F_DUPFD_CLOEXEC, 0));
}

}  // namespace strobe::record
