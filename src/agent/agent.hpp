// Agent: what `strobe agent` does at each tick of the recording session
// (record::RecordOptions::on_tick), on the session's thread, the only one
// that touches the Profile:
//   - takes the HTTP windows (windows.hpp) whose end the recording has
//     reached (records are applied ~20 ms behind; kSlackNs covers it);
//   - every push interval, takes the interval's profile;
//   - for each, copies out the samples it holds and only what they use
//     (encode.hpp's selectSamples) and hands the copy to the Namer
//     (namer.hpp), whose thread names it, encodes it and answers the
//     window or queues the push (push_queue.hpp, dropping the oldest when
//     full: counted, logged). The session's Profile itself is never named:
//     only what a profile holds is, when it is asked for;
//   - every kCompactEveryNs, compacts the Profile (model/compact.hpp) to the
//     samples still needed: those of open windows and of the push interval
//     being filled, and forgets exited processes' address spaces. So
//     memory follows the longest open window, not uptime.
// Owns: the Namer. Not owned: the windows and the push queue (shared with
// the HTTP and push threads). Thread safety: onTick() and finish() on the
// session's thread; stats() and warnings() from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "agent/encode.hpp"
#include "agent/namer.hpp"
#include "agent/push_queue.hpp"
#include "agent/windows.hpp"
#include "model/profile.hpp"
#include "record/kept_files.hpp"
#include "record/session.hpp"

namespace strobe::agent {

inline constexpr uint64_t kTickNs = 200'000'000;
inline constexpr uint64_t kSlackNs = 100'000'000;
inline constexpr uint64_t kCompactEveryNs = 5'000'000'000;

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
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  bool onTick(model::Profile& p, const record::TickInfo& t);
  // After the session: finishes the profiles being named, then answers the
  // open windows with "the agent stopped".
  void finish();

  AgentStats stats() const;
  // The symbolizer's warnings so far, each once.
  std::set<std::string> warnings() const;

 private:
  void answerWindows(model::Profile& p, uint64_t complete_ns);
  void queuePushes(model::Profile& p, uint64_t complete_ns);
  void compact(model::Profile& p, const record::TickInfo& t, uint64_t complete_ns);
  // A job for the Namer: `selected`, with the labels and kept copies it needs.
  NameJob jobFor(const model::Profile& p, model::Profile selected) const;
  Labels labelsOf(const model::Profile& p) const;

  AgentOptions opt_;
  const record::KeptFiles* kept_ = nullptr;  // the session's, updated at each tick
  uint64_t push_from_ns_ = 0;                // the push interval being filled, since the start
  uint64_t last_compaction_ns_ = 0;
  AgentStats stats_;  // but for the two below
  std::atomic<uint64_t> windows_answered_{0};
  std::atomic<uint64_t> profiles_queued_{0};
  bool debug_ = false;  // STROBE_DEBUG: what the Profile holds, at each compaction
  Namer namer_;         // last: its thread ends first, while what its jobs use still exists
};

}  // namespace strobe::agent
