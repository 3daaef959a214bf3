// Collector: the samples of one in-process session as raw addresses, before
// symbolization. Stacks are interned in a trie of addresses; each sample is
// (time, tid, leaf node, weight). toProfile() turns it into a model::Profile:
// modules and file offsets from /proc/self/maps (read at that moment, so
// libraries unloaded during the session stay unresolved), thread names from
// /proc/self/task/TID/comm, JIT code (the registrations of the JIT API, and
// jitdump and perf-map files that runtimes in the process write), then the
// Symbolizer.
//
// Frames are given leaf first, as captured: add() moves every frame but the
// leaf to return address − 1 (into the call instruction). A leaf whose
// frame pointer was not set up when sampled (by its CFI) gets a [missing
// caller] frame above it: the engines' frame-pointer walks skipped its
// caller.
// Owns: its tables. Thread safety: none; the drain thread owns it during a
// session, then the stopping thread. Not async-signal-safe (allocates).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "channel/consumer.hpp"
#include "model/profile.hpp"

namespace strobe::inproc {

struct SessionInfo {
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t frequency = 0;
  std::string event;   // "cpu-clock" or "wall-clock"
  std::string engine;  // "perf" or "timer"
  uint64_t dropped = 0;
  uint64_t process_cpu_ns = 0;   // the whole process's CPU during the session
  uint64_t refused_threads = 0;  // threads the engine could not sample
  std::string refused_reason;    // the first refusal's error
  uint64_t dropped_spans = 0;    // spans the session's reader did not get
  std::string stopped_reason;    // why sampling stopped early (Engine::stoppedReason)
};

class Collector {
 public:
  void add(int32_t tid, uint64_t time_ns, uint64_t weight, const uint64_t* frames, uint32_t n);
  // Remembers a thread's name (read from /proc now); later calls update it.
  void noteThread(int32_t tid);
  // Remembers a thread's name as told (a COMM record, the thread itself at
  // its exit): renames are followed, and the name outlives the thread.
  void nameThread(int32_t tid, std::string name);
  // A span of the program (times CLOCK_MONOTONIC), and a thread's role.
  void addSpan(const channel::SpanEvent& s);
  void setRole(int32_t tid, std::string role);

  [[nodiscard]] size_t sampleCount() const { return samples_.size(); }

  // Builds and symbolizes the profile. Symbolizer warnings go to `warnings`.
  model::Profile toProfile(const SessionInfo& info, std::vector<std::string>* warnings) const;

 private:
  struct Node {
    uint32_t parent;
    uint64_t address;
  };
  struct RawSample {
    uint64_t time_ns;
    uint64_t weight;
    int32_t tid;
    uint32_t leaf;
  };
  std::vector<Node> nodes_;
  struct NodeKey {
    uint32_t parent;
    uint64_t address;
    bool operator==(const NodeKey&) const = default;
  };
  struct NodeKeyHash {
    size_t operator()(const NodeKey& k) const noexcept {
      return std::hash<uint64_t>{}(k.address * 0x9E3779B97F4A7C15ULL ^ k.parent);
    }
  };
  std::unordered_map<NodeKey, uint32_t, NodeKeyHash> node_ids_;
  std::vector<RawSample> samples_;
  std::unordered_map<int32_t, std::string> thread_names_;
  std::vector<uint64_t> scratch_;
  struct RawSpan {
    int32_t tid;
    uint32_t depth;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t name;  // index into span_names_
  };
  std::vector<RawSpan> spans_;
  std::vector<std::string> span_names_;
  // Looked up by string_view: no allocation per span.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> span_name_ids_;
  std::unordered_map<int32_t, std::string> roles_;

  uint32_t intern(uint32_t parent, uint64_t address);
};

// The function name at each address of this process ("" when unknown),
// for pprof's symbol requests.
std::vector<std::string> symbolNames(const std::vector<uint64_t>& addresses);

// The threads of this process (/proc/self/task).
std::vector<int32_t> listThreads();
// /proc/self/task/TID/comm without the newline, "" when unreadable.
std::string threadName(int32_t tid);

}  // namespace strobe::inproc
