#include "import/module_files.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include "model/module_path.hpp"
#include "record/proc.hpp"
#include "symbolize/kallsyms.hpp"

namespace strobe::import {
namespace {

bool isDir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isFile(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool validBuildId(const std::string& id) {
  if (id.size() < 4) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string defaultBuildIdDir() {
  if (const char* d = std::getenv("PERF_BUILDID_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::string(h) + "/.debug";
  }
  return {};
}

std::string ModuleFiles::cached(const std::string& path, const std::string& build_id,
                                const char* leaf) const {
  if (dir_.empty() || !validBuildId(build_id)) return {};
  // .build-id/XX/REST links to the copy's folder (perf 4.x on) or, from
  // older perf, to the copy itself.
  const std::string link = dir_ + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2);
  if (isDir(link) && isFile(link + "/" + leaf)) return link + "/" + leaf;
  if (isFile(link)) return link;
  if (!path.empty()) {
    const std::string folder = dir_ + (path.front() == '/' ? "" : "/") + path + "/" + build_id;
    if (isFile(folder + "/" + leaf)) return folder + "/" + leaf;
    if (isFile(folder)) return folder;
  }
  return {};
}

const std::string& ModuleFiles::locate(const std::string& path, const std::string& build_id) {
  auto [it, fresh] = answers_.try_emplace({path, build_id});
  Answer& a = it->second;
  if (!fresh) return a.file;
  if (path == "[vdso]") {
    a.file = cached(path, build_id, "vdso");
    return a.file;
  }
  if (!model::isFileBacked(path)) return a.file;
  if (build_id.empty()) {
    // Nothing to check it by, nothing to look it up by.
    if (isFile(path)) a.file = path;
    return a.file;
  }
  if (isFile(path)) {
    if (record::readBuildId(path) == build_id) {
      a.file = path;
      return a.file;
    }
    a.changed = true;
  }
  a.file = cached(path, build_id, "elf");
  return a.file;
}

std::string ModuleFiles::kallsyms(const std::string& build_id) const {
  return cached(std::string(symbolize::kKernelModule), build_id, "kallsyms");
}

std::vector<ModuleFiles::Missing> ModuleFiles::missing() const {
  std::vector<Missing> out;
  for (const auto& [key, a] : answers_) {
    if (!a.file.empty() || !model::isFileBacked(key.first)) continue;
    out.push_back(Missing{key.first, key.second, a.changed});
  }
  return out;
}

}  // namespace strobe::import
