// ModuleFiles: where the files a perf.data recording sampled are on this
// machine, by build-id. A module's own path is used while the file there
// still has the build-id the recording gives for it; else the copy in
// perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug: perf record and
// `perf buildid-cache` fill it) at .build-id/XX/REST (a link to the copy's
// folder, which holds `elf`, `vdso` or `kallsyms`) or PATH/BUILD-ID/elf.
// A module without a recorded build-id is used at its path, unchecked.
// Answers are memoized; what could not be found is kept for the report
// ("unnamed: not on this machine and not in the build-id cache").
// Owns: the answers. Thread safety: none.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace strobe::import {

// $PERF_BUILDID_DIR, else $HOME/.debug ("" when neither is set).
std::string defaultBuildIdDir();

class ModuleFiles {
 public:
  explicit ModuleFiles(std::string build_id_dir) : dir_(std::move(build_id_dir)) {}

  // The file to open for module (path, build_id); "" when none matches.
  const std::string& locate(const std::string& path, const std::string& build_id);
  // The build-id cache's copy of a kernel's /proc/kallsyms, "" when none.
  [[nodiscard]] std::string kallsyms(const std::string& build_id) const;

  struct Missing {
    std::string path;
    std::string build_id;
    bool changed = false;  // the path holds a file with another build-id
  };
  // Modules asked for that have no file here.
  [[nodiscard]] std::vector<Missing> missing() const;
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  // The cached copy of `build_id`: a file named `leaf` in its folder (or
  // the link's target itself when it is a file); "" when none.
  [[nodiscard]] std::string cached(const std::string& path, const std::string& build_id,
                                   const char* leaf) const;

  std::string dir_;
  struct Answer {
    std::string file;
    bool changed = false;
  };
  std::map<std::pair<std::string, std::string>, Answer> answers_;
};

}  // namespace strobe::import
