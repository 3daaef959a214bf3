// The agent's HTTP endpoint, Go's net/http/pprof contract:
//   GET /debug/pprof/profile?seconds=N[&pid=PID][&comm=NAME]
// answers the gzipped pprof profile of the next N seconds (default 30,
// 1..kMaxSeconds) of every process the agent samples, or of one process
// (by pid, or by name: its main thread's, as -P matches it). Each request
// gets its own window (windows.hpp), so several scrapers collect at once;
// more than kMaxOpenWindows at once get 503. Bad parameters get 400 with
// one line saying what is wrong. /debug/pprof/symbol answers that no more
// names are known (pprof asks it about addresses left unnamed). The server (cpp-httplib, in the
// module http_module.hpp loads) runs on threads of its own; they only wait for the session's
// thread to answer. Owns: the server and its
// listening thread (stopped and joined on destruction). Thread safety: construct and destroy on one
// thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "agent/http_module.hpp"
#include "agent/windows.hpp"
#include "base/result.hpp"

namespace strobe::agent {

inline constexpr uint64_t kMaxSeconds = 300;

class HttpEndpoint {
 public:
  // addr: "HOST:PORT" or ":PORT" (HOST 127.0.0.1); port 0 picks a free one.
  // kUsage for a malformed address, kGeneric when it cannot listen or
  // the HTTP module does not load.
  static Result<std::unique_ptr<HttpEndpoint>> listen(const std::string& addr, Windows& windows);
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  int port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  HttpEndpoint() = default;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::string host_;
  int port_ = 0;
};

}  // namespace strobe::agent
