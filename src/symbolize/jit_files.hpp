// JitFiles: follows the files in which JIT runtimes name their code while a
// recording runs, and copies what they say into the Profile's JIT table
// (Profile::addJitCode), so that the recording no longer needs the files:
//   - jitdump files (jitdump.hpp), given by followJitdump() when their
//     marker mapping is seen: loads at their records' timestamps (CLOCK_MONOTONIC),
//     moves end the old entry and add one at the new address, debug-info
//     records become the next load's line table, CODE_CLOSE ends the file;
//   - the perf map (perf_map.hpp) of each process that has anonymous
//     executable memory (Profile::anonRegions), in `perf_map_dir`: each line
//     is loaded at the time of the poll that read it. A map not written
//     (yet) is looked for at each poll while its process lives.
// poll() reads what was appended since the last poll; a record or line cut
// off at the end waits for the next one. A file that is not a jitdump, or
// whose record sizes contradict each other, is left with one warning (what
// it read until then stays); nothing in a file can crash it. Code bytes are
// kept up to 256 MiB per recording (then names and lines only, with a warning).
//
// Owns: one open descriptor per followed file (so a file deleted while the
// recording runs is still read to its end), closed by the destructor.
// Thread safety: none; one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace strobe::symbolize {

class JitFiles {
 public:
  explicit JitFiles(std::string perf_map_dir = "/tmp");
  JitFiles(const JitFiles&) = delete;
  JitFiles& operator=(const JitFiles&) = delete;
  ~JitFiles();

  // Follows the jitdump at `path`, written by process `pid` (whose
  // addresses it names). The same path twice is followed once.
  void followJitdump(int32_t pid, const std::string& path);
  // Reads what is new. `now_ns`: CLOCK_MONOTONIC now (the load time of
  // perf-map lines; the profile's meta start must be set).
  void poll(model::Profile& p, uint64_t now_ns);
  // The last poll(), when the runtimes have stopped writing: a jitdump that
  // ends inside a record is reported as cut off.
  void finish(model::Profile& p, uint64_t now_ns);
  // Problems met since the last call, one line each (each file at most once).
  std::vector<std::string> takeWarnings();

  struct Followed;  // one file, in jit_files.cpp

 private:
  std::string perf_map_dir_;
  std::vector<std::unique_ptr<Followed>> files_;
  std::set<std::string> paths_;  // followed (or tried) paths
  std::set<int32_t> map_pids_;   // pids whose perf map is followed
  std::vector<std::string> warnings_;
  uint64_t bytes_kept_ = 0;
  bool bytes_warned_ = false;
};

}  // namespace strobe::symbolize
