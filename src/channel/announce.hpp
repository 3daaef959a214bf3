// How a program launched by `strobe record` hands its span channel to strobe.
// strobe opens a Listener, an abstract unix datagram socket named
// "@strobe-channel-PID-RANDOM" (PID: strobe's), and puts that name in the
// command's environment as STROBE_CHANNEL. libstrobe in every process of the
// command that sees the variable makes its channel, joins the external
// reader on strobe's behalf (listenerPid), and sends the memfd over the
// socket (SCM_RIGHTS); the kernel adds the sender's credentials, so strobe
// knows the pid and refuses other users' channels. A send never blocks: when
// strobe is gone (or its queue is full) the program gets false and goes on
// without a reader. Processes strobe attaches to (-p) are found instead
// through /proc/PID/fd (findChannel).
//
// Owns: a Listener owns its socket; received descriptors go to the caller.
// Thread safety: a Listener is used by one thread; announce() is reentrant.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/fd.hpp"
#include "base/result.hpp"

namespace strobe::channel {

inline constexpr const char* kEnvVar = "STROBE_CHANNEL";

class Listener {
 public:
  static Result<Listener> open();

  // The STROBE_CHANNEL value: "@strobe-channel-PID-RANDOM".
  [[nodiscard]] const std::string& address() const { return address_; }
  [[nodiscard]] int fd() const { return fd_.get(); }

  struct Announcement {
    int32_t pid = 0;  // the sender, as the kernel says
    Fd channel;
  };
  // Everything queued, without blocking. Messages from other users (unless
  // strobe runs as root) and malformed ones are dropped.
  std::vector<Announcement> receive();

 private:
  Fd fd_;
  std::string address_;
};

// Sends `channel_fd` to the listener at `address` (a STROBE_CHANNEL value);
// false when nobody listens there. Never blocks.
bool announce(std::string_view address, int channel_fd);

// The pid of the strobe that made `address`, 0 when it is not such an address.
int32_t listenerPid(std::string_view address);

// The descriptor number of process `pid`'s span channel in /proc/PID/fd,
// -1 when it has none (or it cannot be seen).
int findChannel(pid_t pid);

}  // namespace strobe::channel
