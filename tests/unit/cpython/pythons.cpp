#include "pythons.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../../e2e/run_process.hpp"

namespace strobe::test {
namespace {

bool executable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

std::string pyenvRoot() {
  if (const char* r = std::getenv("PYENV_ROOT"); r != nullptr && *r != '\0') return r;
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::string(h) + "/.pyenv";
  }
  return "/root/.pyenv";
}

}  // namespace

std::vector<TestPython> installedPythons(int minor) {
  std::vector<TestPython> out;
  const std::string mm = "3." + std::to_string(minor);
  const std::string probes = STROBE_BINARY_DIR "/tests/unit/cpython/";
  if (std::string bin = "/usr/bin/python" + mm; executable(bin)) {
    std::string probe = probes + "layout_probe_system_" + mm;
    out.push_back({"debian-" + mm, bin, executable(probe) ? probe : "", minor});
  }
  const std::string versions = pyenvRoot() + "/versions";
  std::vector<std::string> names;
  if (DIR* d = ::opendir(versions.c_str()); d != nullptr) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind(mm + ".", 0) == 0 && n.find_first_not_of("0123456789.") == std::string::npos) {
        names.push_back(n);
      }
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    std::string bin = versions + "/" + n + "/bin/python" + mm;
    if (!executable(bin)) continue;
    std::string probe = probes + "layout_probe_pyenv_" + n;
    out.push_back({"pyenv-" + n, bin, executable(probe) ? probe : "", minor});
  }
  return out;
}

std::string noPythonReason(int minor) {
  const std::string mm = "3." + std::to_string(minor);
  return "no CPython " + mm + " installed (neither /usr/bin/python" + mm + " nor " + pyenvRoot() +
         "/versions/" + mm + ".*)";
}

std::string cpythonScript(const std::string& name) {
  return STROBE_SOURCE_DIR "/tests/unit/cpython/scripts/" + name;
}

std::vector<cpython::MappedFile> mappedFiles(int pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::vector<cpython::MappedFile> out;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream l(line);
    std::string range, perms, offset, dev, inode, path;
    l >> range >> perms >> offset >> dev >> inode >> path;
    if (path.empty()) continue;
    out.push_back({std::stoull(range.substr(0, range.find('-')), nullptr, 16),
                   std::stoull(offset, nullptr, 16), path});
  }
  return out;
}

std::string waitForLine(const std::string& path, const std::string& needle) {
  for (int i = 0; i < 1000; ++i) {
    std::istringstream text(readFile(path));
    for (std::string line; std::getline(text, line);) {
      if (line.find(needle) != std::string::npos) return line;
    }
    sleepMs(10);
  }
  return {};
}

}  // namespace strobe::test
