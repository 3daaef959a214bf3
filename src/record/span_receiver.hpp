// The spans and thread roles of the profiled processes (src/channel): the
// processes of a launched command announce their channels to a Listener
// named in their environment (STROBE_CHANNEL); an attached process's
// channel is found in /proc/PID/fd. poll() takes new announcements and
// drains every channel (the session calls it each pass, so a program's
// buffers empty at least every 100 ms); finish() drains a last time, leaves
// every channel (the programs stop recording spans) and puts spans, roles
// and the count of dropped spans into the Profile. Processes without
// libstrobe simply have no channel.
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
  std::vector<std::string> problems_;  // channels that could not be read

  friend class ReceiverSink;
};

}  // namespace strobe::record
