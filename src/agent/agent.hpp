// Agent: what `strobe agent` does at each tick of the recording session
// (record::RecordOptions::on_tick), on the session's thread, the only one
// that touches the Profile:
//   - names new locations incrementally (symbolize::IncrementalSymbolizer,
//     as `top` does), waiting briefly so the rings keep draining;
//   - answers the HTTP windows (windows.hpp) whose end the recording has
//     reached (records are applied ~20 ms behind; kSlackNs covers it),
//     naming every location of theirs first;
//   - every push interval, queues the interval's profile (push_queue.hpp),
//     dropping the oldest when the queue is full (counted, logged);
//   - every kCompactEveryNs, compacts the Profile (model/compact.hpp) to the
//     samples still needed: those of open windows and of the push interval
//     being filled, and forgets exited processes' address spaces. So
//     memory follows the longest open window, not uptime;
//   - every kRenewSymbolizerNs, starts a new symbolizer: the names already
//     found stay in the Profile, the debug information of modules read
//     for them is let go (a host runs new binaries all the time).
// Owns: the symbolizer. Not owned: the windows and the push queue (shared
// with the HTTP and push threads). Thread safety: the session's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "agent/encode.hpp"
#include "agent/push_queue.hpp"
#include "agent/windows.hpp"
#include "model/profile.hpp"
#include "record/kept_files.hpp"
#include "record/session.hpp"
#include "symbolize/incremental.hpp"

namespace strobe::agent {

inline constexpr uint64_t kTickNs = 200'000'000;
inline constexpr uint64_t kSlackNs = 100'000'000;
inline constexpr uint64_t kCompactEveryNs = 5'000'000'000;
inline constexpr uint64_t kRenewSymbolizerNs = 120'000'000'000;

struct AgentOptions {
  Windows* windows = nullptr;  // null: no HTTP endpoint
  PushQueue* push = nullptr;   // null: no pushing
  uint64_t push_interval_ns = 15'000'000'000;
  Labels labels;  // on every sample, besides the host name
};

struct AgentStats {
  uint64_t windows_answered = 0;
  uint64_t profiles_queued = 0;
  uint64_t compactions = 0;
  uint64_t samples_dropped = 0;  // by compaction (no longer needed)
  uint64_t stacks_dropped = 0;
};

class Agent {
 public:
  explicit Agent(AgentOptions opt);
  Agent(const Agent&) = delete;  // the symbolizer refers back to it
  Agent& operator=(const Agent&) = delete;

  bool onTick(model::Profile& p, const record::TickInfo& t);
  // After the session: answers the open windows with "the agent stopped".
  void finish();

  const AgentStats& stats() const { return stats_; }
  // The symbolizer's warnings so far, each once.
  std::set<std::string> warnings() const;

 private:
  void answerWindows(model::Profile& p, uint64_t complete_ns);
  void queuePushes(model::Profile& p, uint64_t complete_ns);
  void compact(model::Profile& p, const record::TickInfo& t, uint64_t complete_ns);
  void renewSymbolizer();
  // Every location named (waits for the symbolizer).
  void nameAll(model::Profile& p);
  Labels labelsOf(const model::Profile& p) const;

  AgentOptions opt_;
  const record::KeptFiles* kept_ = nullptr;  // the session's, updated at each tick
  // Renewed every kRenewSymbolizerNs (between batches), so that the debug
  // information of modules no longer sampled is let go.
  std::unique_ptr<symbolize::IncrementalSymbolizer> symbolizer_;
  bool symbolizer_idle_ = true;  // no batch being resolved
  uint64_t symbolizer_since_ns_ = 0;
  std::set<std::string> warnings_;
  uint64_t push_from_ns_ = 0;  // the push interval being filled, since the start
  uint64_t last_compaction_ns_ = 0;
  AgentStats stats_;
  bool debug_ = false;  // STROBE_DEBUG: what the Profile holds, at each compaction
};

}  // namespace strobe::agent
