#include "channel/announce.hpp"

#include <dirent.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "channel/layout.hpp"

namespace strobe::channel {
namespace {

constexpr std::string_view kPrefix = "@strobe-channel-";
constexpr char kHello[8] = {'S', 'T', 'R', 'B', 'C', 'H', 'A', 'N'};

// The sockaddr of an abstract name given as "@name"; its length, 0 when bad.
socklen_t abstractAddress(std::string_view address, sockaddr_un& sa) {
  std::memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if (address.size() < 2 || address[0] != '@' || address.size() > sizeof sa.sun_path) return 0;
  std::memcpy(sa.sun_path + 1, address.data() + 1, address.size() - 1);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
}

}  // namespace

Result<Listener> Listener::open() {
  Fd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return systemError("cannot create the span channel socket");
  int on = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    return systemError("cannot create the span channel socket");
  }
  // A larger queue: every process of a command announces itself once.
  int bytes = 1 << 20;
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  for (int attempt = 0; attempt < 8; ++attempt) {
    uint64_t random = 0;
    if (::getrandom(&random, sizeof random, GRND_NONBLOCK) != sizeof random) {
      random = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ULL + attempt;
    }
    char name[80];
    std::snprintf(name, sizeof name, "%.*s%d-%016llx", static_cast<int>(kPrefix.size()),
                  kPrefix.data(), static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(random));
    sockaddr_un sa{};
    socklen_t len = abstractAddress(name, sa);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) == 0) {
      Listener l;
      l.fd_ = std::move(fd);
      l.address_ = name;
      return l;
    }
    if (errno != EADDRINUSE) break;
  }
  return systemError("cannot bind the span channel socket");
}

std::vector<Listener::Announcement> Listener::receive() {
  std::vector<Announcement> out;
  const uid_t me = ::geteuid();
  for (;;) {
    char data[16];
    iovec iov{data, sizeof data};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;  // EAGAIN: nothing more
    }
    std::vector<Fd> fds;
    bool have_cred = false;
    ucred cred{};
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET) continue;
      if (c->cmsg_type == SCM_RIGHTS) {
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
          int fd = -1;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
          fds.emplace_back(fd);
        }
      } else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof cred)) {
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        have_cred = true;
      }
    }
    const bool ours = have_cred && (cred.uid == me || me == 0);
    const bool hello = n == static_cast<ssize_t>(sizeof kHello) &&
                       std::memcmp(data, kHello, sizeof kHello) == 0 &&
                       (msg.msg_flags & MSG_CTRUNC) == 0;
    if (!ours || !hello || fds.size() != 1) continue;  // the Fds close
    out.push_back(Announcement{cred.pid, std::move(fds.front())});
  }
  return out;
}

bool announce(std::string_view address, int channel_fd) {
  sockaddr_un sa{};
  socklen_t len = abstractAddress(address, sa);
  if (len == 0 || channel_fd < 0) return false;
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  iovec iov{const_cast<char*>(kHello), sizeof kHello};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_name = &sa;
  msg.msg_namelen = len;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &channel_fd, sizeof channel_fd);
  ssize_t n;
  do {
    n = ::sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof kHello);
}

int32_t listenerPid(std::string_view address) {
  if (address.substr(0, kPrefix.size()) != kPrefix) return 0;
  std::string_view rest = address.substr(kPrefix.size());
  int64_t pid = 0;
  size_t i = 0;
  for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && pid < INT32_MAX; ++i) {
    pid = pid * 10 + (rest[i] - '0');
  }
  if (i == 0 || i >= rest.size() || rest[i] != '-' || pid <= 0 || pid > INT32_MAX) return 0;
  return static_cast<int32_t>(pid);
}

int findChannel(pid_t pid) {
  char dir[64];
  std::snprintf(dir, sizeof dir, "/proc/%d/fd", static_cast<int>(pid));
  DIR* d = ::opendir(dir);
  if (d == nullptr) return -1;
  int found = -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[320];
    char link[256];
    std::snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ssize_t n = ::readlink(path, link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = '\0';
    if (std::strcmp(link, kMemfdLink) == 0) {
      found = std::atoi(e->d_name);
      break;
    }
  }
  ::closedir(d);
  return found;
}

}  // namespace strobe::channel
