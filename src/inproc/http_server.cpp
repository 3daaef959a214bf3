#include "inproc/http_server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "base/decimal.hpp"
#include "base/log.hpp"
#include "inproc/collector.hpp"
#include "inproc/session.hpp"
#include "inproc/writer.hpp"

namespace strobe::inproc {
namespace {

constexpr uint64_t kMaxSeconds = 3600;
// A request's line, headers and body must all arrive within this time of
// the connection being taken up: one header line a second (slowloris)
// cannot hold a worker longer.
constexpr int kRequestMs = 5000;
// Each write of the answer must make progress within this time.
constexpr int kWriteMs = 5000;
// Connections one client address may have in service at once; the rest
// are closed at once, so one client cannot take every worker (there are 8).
constexpr int kMaxPerClient = 4;
// How often a running profile checks that its client is still there.
constexpr auto kClientCheck = std::chrono::milliseconds(100);

// The socket of the request the calling worker serves (-1: none).
thread_local int t_client = -1;

int msLeft(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

std::string addressOf(const sockaddr_storage& a, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  port = 0;
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  }
  return text;
}

// A connection's socket with deadlines: reads fail once the request's time
// is up, writes once one makes no progress for kWriteMs.
class DeadlineStream final : public httplib::Stream {
 public:
  explicit DeadlineStream(int sock)
      : sock_(sock),
        deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(kRequestMs)) {}

  bool is_readable() const override { return waitFor(POLLIN, msLeft(deadline_)); }
  bool is_writable() const override { return waitFor(POLLOUT, kWriteMs); }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ == len_) {
      if (!is_readable()) return -1;
      ssize_t n;
      do {
        n = ::recv(sock_, buf_, sizeof buf_, MSG_DONTWAIT);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      len_ = static_cast<size_t>(n);
    }
    size_t n = std::min(size, len_ - off_);
    std::memcpy(ptr, buf_ + off_, n);
    off_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    size_t done = 0;
    while (done < size) {
      if (!is_writable()) return done > 0 ? static_cast<ssize_t>(done) : -1;
      ssize_t n = ::send(sock_, ptr + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return done > 0 ? static_cast<ssize_t>(done) : -1;
      done += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(done);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip = ::getpeername(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0 ? addressOf(a, port) : "";
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip = ::getsockname(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0 ? addressOf(a, port) : "";
  }
  socket_t socket() const override { return sock_; }

 private:
  bool waitFor(short events, int timeout_ms) const {
    pollfd p{sock_, events, 0};
    int rc;
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    return rc > 0 && (p.revents & (events | POLLHUP | POLLERR)) != 0;
  }

  int sock_;
  std::chrono::steady_clock::time_point deadline_;
  char buf_[4096];
  size_t off_ = 0;
  size_t len_ = 0;
};

// Counts a client address's connections in service while it lives.
class ClientSlot {
 public:
  explicit ClientSlot(int sock) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    int port = 0;
    if (::getpeername(sock, reinterpret_cast<sockaddr*>(&a), &len) == 0) addr_ = addressOf(a, port);
    std::lock_guard lock(mu());
    ok_ = ++counts()[addr_] <= kMaxPerClient;
  }
  ~ClientSlot() {
    std::lock_guard lock(mu());
    if (--counts()[addr_] == 0) counts().erase(addr_);
  }
  ClientSlot(const ClientSlot&) = delete;
  ClientSlot& operator=(const ClientSlot&) = delete;
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  // Never destroyed: workers may still run at exit.
  static std::mutex& mu() {
    static auto* m = new std::mutex();
    return *m;
  }
  static std::map<std::string, int>& counts() {
    static auto* c = new std::map<std::string, int>();
    return *c;
  }
  std::string addr_;
  bool ok_ = false;
};

// cpp-httplib's server with strobe's connection handling: one request per
// connection, read under a deadline, at most kMaxPerClient connections per
// client address in service; the request's socket is known to its handler
// (a profile ends early when its client leaves).
class GuardedServer final : public httplib::Server {
 private:
  bool process_and_close_socket(socket_t sock) override {
    bool served = false;
    {
      ClientSlot slot(sock);
      if (slot.ok()) {
        DeadlineStream stream(sock);
        bool closed = false;
        t_client = sock;
        served = process_request(stream, /*close_connection=*/true, closed, nullptr);
        t_client = -1;
      }
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return served;
  }
};

// Whether the client of the calling worker's request has gone away (closed
// or reset its connection).
bool clientGone() {
  if (t_client < 0) return false;
  pollfd p{t_client, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if ((p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return true;
  char c;
  return ::recv(t_client, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

// Whether `host` is a loopback address (only this machine can connect).
bool isLoopback(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::mutex g_mu;
httplib::Server* g_server = nullptr;  // lives until exit (never destroyed)
std::atomic<int> g_port{0};
std::atomic<bool> g_busy{false};

void reply(httplib::Response& res, int status, const std::string& text) {
  res.status = status;
  res.set_content(text + "\n", "text/plain");
}

void handleProfile(const httplib::Request& req, httplib::Response& res) {
  int64_t seconds = 30;
  if (req.has_param("seconds")) {
    seconds = parseCount(req.get_param_value("seconds"));
    if (seconds <= 0) return reply(res, 400, "seconds must be a positive whole number");
    if (static_cast<uint64_t>(seconds) > kMaxSeconds) {
      return reply(res, 400, "seconds must be at most 3600");
    }
  }
  Options o;
  if (req.has_param("hz")) {
    int64_t hz = parseCount(req.get_param_value("hz"));
    if (hz <= 0 || hz > 100000) return reply(res, 400, "hz must be 1 to 100000");
    o.frequency = static_cast<uint32_t>(hz);
  }
  bool expected = false;
  if (!g_busy.compare_exchange_strong(expected, true)) {
    return reply(res, 429, "a profile is already being taken; try again when it is done");
  }
  struct Release {
    ~Release() { g_busy.store(false); }
  } release;
  if (sessionRunning()) {
    return reply(res, 409, "the program is profiling itself already (strobe_start)");
  }
  if (Status s = startSession(o); !s.ok()) return reply(res, 500, s.error().describe());
  // A client that goes away cancels its profile (and frees the endpoint).
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (clientGone()) {
      (void)stopSession();
      return reply(res, 499, "the client closed the connection");
    }
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        kClientCheck, end - std::chrono::steady_clock::now()));
  }
  if (Status s = stopSession(); !s.ok()) return reply(res, 500, s.error().describe());
  std::string bytes;
  Status s = withLastProfile([&](const model::Profile& p) -> Status {
    auto b = profileBytes(p, "pprof");
    if (!b.ok()) return b.takeError();
    bytes = std::move(*b);
    return {};
  });
  if (!s.ok()) return reply(res, 500, s.error().describe());
  res.status = 200;
  res.set_header("Content-Disposition", "attachment; filename=\"profile.pb.gz\"");
  res.set_content(bytes, "application/octet-stream");
}

// pprof's symbol protocol (as Go's net/http/pprof): GET says symbols are
// available; POST "0xA+0xB+..." answers "0xA name" lines.
void handleSymbol(const httplib::Request& req, httplib::Response& res) {
  std::string body = "num_symbols: 1\n";
  if (req.method == "POST") {
    std::vector<uint64_t> addrs;
    size_t pos = 0;
    const std::string& in = req.body;
    while (pos <= in.size() && addrs.size() < 100000) {
      size_t plus = in.find('+', pos);
      std::string word = in.substr(pos, plus == std::string::npos ? std::string::npos : plus - pos);
      uint64_t pc = std::strtoull(word.c_str(), nullptr, 0);
      if (pc != 0) addrs.push_back(pc);
      if (plus == std::string::npos) break;
      pos = plus + 1;
    }
    std::vector<std::string> names = symbolNames(addrs);
    char hex[32];
    for (size_t i = 0; i < addrs.size(); ++i) {
      if (names[i].empty()) continue;
      std::snprintf(hex, sizeof hex, "%#lx ", static_cast<unsigned long>(addrs[i]));
      body += hex + names[i] + "\n";
    }
  }
  res.status = 200;
  res.set_content(body, "text/plain; charset=utf-8");
}

}  // namespace

Status serveHttp(const std::string& addr) {
  std::lock_guard lock(g_mu);
  if (g_server != nullptr) {
    return makeError("libstrobe already serves HTTP on port " + std::to_string(g_port.load()),
                     "call strobe_serve_http once per process", ErrorKind::kUsage);
  }
  auto colon = addr.rfind(':');
  std::string host = colon == std::string::npos ? addr : addr.substr(0, colon);
  int64_t port = colon == std::string::npos ? -1 : parseCount(addr.substr(colon + 1));
  if (host.empty()) host = "127.0.0.1";
  if (port < 0 || port > 65535) {
    return makeError("bad HTTP address '" + addr + "'", "use HOST:PORT, e.g. 127.0.0.1:6060",
                     ErrorKind::kUsage);
  }
  auto* svr = new GuardedServer();
  svr->Get("/debug/pprof/profile", handleProfile);
  svr->Get("/debug/pprof/symbol", handleSymbol);
  svr->Post("/debug/pprof/symbol", handleSymbol);
  int bound = port == 0
                  ? svr->bind_to_any_port(host)
                  : (svr->bind_to_port(host, static_cast<int>(port)) ? static_cast<int>(port) : -1);
  if (bound <= 0) {
    delete svr;
    return makeError("cannot listen for HTTP on " + host + ":" + std::to_string(port),
                     "the port may be in use or the host not local; pick another address",
                     ErrorKind::kGeneric);
  }
  g_server = svr;
  g_port.store(bound);
  if (!isLoopback(host)) {
    logWarning("serving profiles on " + host + ":" + std::to_string(bound) +
                   ", which other machines can reach: anyone who connects can profile this "
                   "program and read its function names",
               "use 127.0.0.1:PORT (and an SSH tunnel) unless the network is trusted");
  }
  std::thread t = spawnInternalThread([svr] { svr->listen_after_bind(); });
  t.detach();
  return {};
}

int httpPort() {
  return g_port.load();
}

}  // namespace strobe::inproc
