// The spans and thread roles of the profiled processes (src/channel): the
// processes of a launched command announce their channels to a Listener
// named in their environment (STROBE_CHANNEL); an attached process's
// channel is found in /proc/PID/fd. poll() takes new announcements and
// drains every channel (the session calls it each pass, so a program's
// buffers empty at least every 100 ms); finish() drains a last time, leaves
// every channel (the programs stop recording spans) and puts spans, roles
// and the count of dropped spans into the Profile. Processes without
// libstrobe simply have no channel.
// Live views (strobe agent) call liveRoles(): spans are not kept (a host
// runs for days), roles reach the Profile as they arrive (applyRoles(),
// each pass), and discover() finds the channels of processes that were not
// launched or attached to (-a): those sampled lately, each looked for at
// most every kDiscoverEveryNs; channels of processes that are gone are left.
//
// Owns: the listener and every channel's mapping. Thread safety: one thread
// (the recording's).
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"
#include "channel/announce.hpp"
#include "channel/consumer.hpp"
#include "model/profile.hpp"

namespace strobe::record {

class SpanReceiver {
 public:
  // Listens for a launched command's channels.
  Status listen();
  // "STROBE_CHANNEL=@..." for the command's environment ("" when not listening).
  [[nodiscard]] std::string environment() const;
  // The listener's descriptor (-1 when not listening), to poll for announcements.
  [[nodiscard]] int fd() const;

  // Reads process `pid`'s channel, if it has one (-p). Problems are warnings.
  void attach(pid_t pid, std::vector<std::string>& warnings);

  void poll();

  // Spans are dropped as they arrive; roles are applied by applyRoles().
  void liveRoles() { live_roles_ = true; }
  // The roles received since the last call, into `p`'s threads.
  void applyRoles(model::Profile& p);
  // Joins the channels of `pids` (processes sampled lately) not joined yet
  // and not looked for since now_ns - kDiscoverEveryNs; leaves the
  // channels of processes that are gone.
  static constexpr uint64_t kDiscoverEveryNs = 10'000'000'000;
  void discover(const std::vector<int32_t>& pids, uint64_t now_ns);

  // Spans (times relative to start_monotonic_ns), roles and dropped spans
  // into `p`; a line in `warnings` when spans were lost.
  void finish(model::Profile& p, uint64_t start_monotonic_ns, std::vector<std::string>& warnings);

 private:
  struct Source {
    int32_t pid = 0;
    std::unique_ptr<channel::Consumer> consumer;
  };
  void add(int32_t pid, Fd fd, bool adopt, std::vector<std::string>* warnings);

  std::optional<channel::Listener> listener_;
  std::vector<Source> sources_;

  // What the channels delivered.
  struct Span {
    int32_t tid;
    uint32_t depth;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t name;  // into names_
  };
  struct Role {
    int32_t pid;
    std::string label;
  };
  std::vector<Span> spans_;
  std::vector<std::string> names_;
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> name_ids_;
  std::unordered_map<int32_t, Role> roles_;
  bool live_roles_ = false;
  std::vector<int32_t> new_roles_;                    // tids, since applyRoles()
  std::unordered_map<int32_t, uint64_t> looked_for_;  // pid -> when (discover())
  uint64_t next_prune_ns_ = 0;
  std::vector<std::string> problems_;  // channels that could not be read

  friend class ReceiverSink;
};

}  // namespace strobe::record
