#include "agent/http_endpoint.hpp"

#include <chrono>

#include "base/clock.hpp"
#include "base/decimal.hpp"

namespace strobe::agent {
namespace {

void reply(HttpResponse& res, int status, const std::string& text) {
  res.status = status;
  res.body = text + "\n";
  res.content_type = "text/plain";
}

void handleProfile(Windows& windows, const HttpRequest& req, HttpResponse& res) {
  int64_t seconds = 30;
  if (req.has("seconds")) {
    seconds = parseCount(req.get("seconds"));
    if (seconds <= 0) return reply(res, 400, "seconds must be a positive whole number");
    if (static_cast<uint64_t>(seconds) > kMaxSeconds) {
      return reply(res, 400, "seconds must be at most " + std::to_string(kMaxSeconds));
    }
  }
  Selection sel;
  if (req.has("pid")) {
    int64_t pid = parseCount(req.get("pid"));
    if (pid <= 0) return reply(res, 400, "pid must be a positive whole number");
    sel.pid = static_cast<pid_t>(pid);
  }
  if (req.has("comm")) {
    sel.comm = req.get("comm");
    if (sel.comm.empty() || sel.comm.size() > 15) {
      return reply(res, 400, "comm must be a process name of 1 to 15 bytes");
    }
  }
  const uint64_t now = monotonicNs();
  auto future = windows.open(now, now + static_cast<uint64_t>(seconds) * 1'000'000'000ULL, sel);
  if (!future) return reply(res, 503, future.error().message + "; " + future.error().hint);
  // The session answers once the window's samples are in; allow it a minute more.
  if (future->wait_for(std::chrono::seconds(seconds + 60)) != std::future_status::ready) {
    return reply(res, 503, "the profile was not ready in time");
  }
  Result<std::string> bytes = future->get();
  if (!bytes) return reply(res, 503, bytes.error().describe());
  res.status = 200;
  res.headers.emplace_back("Content-Disposition", "attachment; filename=\"profile\"");
  res.body = std::move(*bytes);
  res.content_type = "application/octet-stream";
}

}  // namespace

Result<std::unique_ptr<HttpEndpoint>> HttpEndpoint::listen(const std::string& addr,
                                                           Windows& windows) {
  auto colon = addr.rfind(':');
  std::string host = colon == std::string::npos ? addr : addr.substr(0, colon);
  int64_t port = colon == std::string::npos ? -1 : parseCount(addr.substr(colon + 1));
  if (host.empty()) host = "127.0.0.1";
  if (port < 0 || port > 65535) {
    return makeError("--http " + addr + " is not HOST:PORT", "e.g. --http 127.0.0.1:6060",
                     ErrorKind::kUsage);
  }
  auto module = httpModule();
  if (!module) return module.takeError();
  std::unique_ptr<HttpEndpoint> e(new HttpEndpoint());
  // One thread per open window, and a few for requests that are refused.
  e->server_ = (*module)->newServer(kMaxOpenWindows + 4, 5);
  HttpServer& svr = *e->server_;
  svr.get("/debug/pprof/profile", [&windows](const HttpRequest& req, HttpResponse& res) {
    handleProfile(windows, req, res);
  });
  // pprof asks here for the names of addresses a profile left unnamed. The
  // agent named all it could before answering: it knows no more (an empty
  // answer), as a Go program without those symbols would say.
  auto symbol = [](const HttpRequest& req, HttpResponse& res) {
    res.status = 200;
    res.body = req.method == "GET" ? "num_symbols: 0\n" : "";
    res.content_type = "text/plain; charset=utf-8";
  };
  svr.get("/debug/pprof/symbol", symbol);
  svr.post("/debug/pprof/symbol", symbol);
  int bound = svr.bind(host, static_cast<int>(port));
  if (bound <= 0) {
    return makeError("cannot listen for HTTP on " + host + ":" + std::to_string(port),
                     "the port may be in use or the host not local; pick another --http address",
                     ErrorKind::kGeneric);
  }
  e->host_ = host;
  e->port_ = bound;
  e->thread_ = std::thread([s = e->server_.get()] { s->listenAfterBind(); });
  return e;
}

HttpEndpoint::~HttpEndpoint() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strobe::agent
