// Namer: names and encodes the agent's profiles on a thread of its own, so
// that reading debug information never holds up the session's thread that
// drains the rings. Each job is a small profile (encode.hpp's selectSamples:
// the samples of one window or push interval and only what they use); the
// thread names its locations with one Symbolizer kept across jobs, encodes
// the profile (encodePprof) and hands the bytes to the job's callback. So
// the agent reads the debug information of the modules a profile holds,
// when a profile is asked for, and nothing else.
// Bounds: after each job, the Symbolizer lets go of the modules no job
// used among the last kModuleJobs, keeps at most kMaxModules (the least
// recently used go first), and fewer while the heap in use is above
// kHeapBudgetBytes; a module needed again is read again. The
// pages of the module files kept are let go after each job too (they stay
// in the page cache), so they count in the agent's RSS only while read.
// Jobs wait in order (at most one per open window and push interval).
// Owns: the thread and the Symbolizer. Thread safety: add() and stop()
// from any thread; callbacks run on the Namer's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/encode.hpp"
#include "base/fd.hpp"
#include "base/result.hpp"
#include "model/profile.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::agent {

inline constexpr uint64_t kModuleJobs = 8;
inline constexpr size_t kMaxModules = 64;
// After each job, modules are let go (least recently used first) while the
// process's heap in use is above this: the DWARF indexes of the modules
// kept are most of it (bench/agent: 100-200 MiB of them when the machine
// ran many programs with large debug information).
inline constexpr size_t kHeapBudgetBytes = size_t{24} << 20;

struct NameJob {
  model::Profile profile;
  Labels labels;
  // The recorder's kept copies of the profile's module files, by path +
  // '\0' + build-id: "/proc/self/fd/N" of the job's own descriptors,
  // closed with the job (record/kept_files.hpp's dupFor()).
  std::map<std::string, std::string> kept;
  std::vector<Fd> kept_fds;
  std::function<void(Result<std::string>)> done;  // the gzipped pprof bytes, or why not
};

class Namer {
 public:
  Namer();
  ~Namer();  // stop()
  Namer(const Namer&) = delete;
  Namer& operator=(const Namer&) = delete;

  void add(NameJob job);
  // Runs the jobs added so far, then ends the thread.
  void stop();
  // The symbolizer's warnings so far, each once.
  std::set<std::string> warnings() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<NameJob> jobs_;
  bool stopping_ = false;
  std::set<std::string> warnings_;
  std::map<std::string, std::string> kept_;  // the running job's (the Namer's thread)
  std::unique_ptr<symbolize::Symbolizer> symbolizer_;
  bool debug_ = false;  // STROBE_DEBUG: the heap in use after each job
  std::thread thread_;
};

}  // namespace strobe::agent
