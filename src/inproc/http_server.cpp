#include "inproc/http_server.hpp"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "inproc/collector.hpp"
#include "inproc/session.hpp"
#include "inproc/writer.hpp"

namespace strobe::inproc {
namespace {

constexpr uint64_t kMaxSeconds = 3600;

std::mutex g_mu;
httplib::Server* g_server = nullptr;  // lives until exit (never destroyed)
std::atomic<int> g_port{0};
std::atomic<bool> g_busy{false};

// Strict decimal, or -1.
int64_t parseCount(const std::string& s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

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
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
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
  auto* svr = new httplib::Server();
  svr->Get("/debug/pprof/profile", handleProfile);
  svr->Get("/debug/pprof/symbol", handleSymbol);
  svr->Post("/debug/pprof/symbol", handleSymbol);
  svr->set_read_timeout(5, 0);
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
  std::thread t = spawnInternalThread([svr] { svr->listen_after_bind(); });
  t.detach();
  return {};
}

int httpPort() {
  return g_port.load();
}

}  // namespace strobe::inproc
