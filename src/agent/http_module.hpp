// The agent's HTTP server and client, in a module strobe loads with dlopen
// when `strobe agent` serves (--http) or pushes (--push): the module is
// strobe-agent-http.so, built on cpp-httplib (http_module.cpp).
//
// Why a module: Debian's cpp-httplib is a shared library built with OpenSSL
// and brotli, so linking it loads libssl, libcrypto (which reads
// openssl.cnf) and three brotli libraries into every strobe command:
// their relocations were about half of `strobe --version`'s CPU and 4 ms of
// every `strobe report` (docs/BENCHMARKS.md). The agent uses none of
// OpenSSL (it speaks plain HTTP) and only it needs HTTP at all.
//
// The interface is C++ (std::string, std::function), as cpp-httplib's own
// is: both sides are built by the same compiler from the same headers.
// Where: next to the strobe executable (a build tree), else in
// STROBE_AGENT_HTTP_DIR relative to it (an installation: ../lib/strobe).
// Thread safety: httpModule() may be called from any thread; the server
// calls handlers on its own threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace strobe::agent {

struct HttpRequest {
  std::string method;
  std::multimap<std::string, std::string> params;  // the query's, decoded, in order
  [[nodiscard]] bool has(const std::string& key) const { return params.count(key) != 0; }
  // The first value of `key`, "" when absent.
  [[nodiscard]] std::string get(const std::string& key) const {
    auto it = params.find(key);
    return it == params.end() ? std::string() : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain";
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  virtual void get(const std::string& path, HttpHandler handler) = 0;
  virtual void post(const std::string& path, HttpHandler handler) = 0;
  // The bound port (`port` 0: any free one), or -1 when it cannot bind.
  virtual int bind(const std::string& host, int port) = 0;
  // Serves until stop(); call on a thread of its own after bind().
  virtual void listenAfterBind() = 0;
  virtual void stop() = 0;
};

struct HttpPostResult {
  bool sent = false;  // an answer came (status, body); else `error` says why
  int status = 0;
  std::string body;
  std::string error;
};

struct HttpModule {
  uint32_t version;  // kHttpModuleVersion
  // A server running up to `threads` requests at once, each read within
  // `read_timeout_s` seconds.
  std::unique_ptr<HttpServer> (*newServer)(unsigned threads, int read_timeout_s);
  // POST `body` to scheme_host_port + path_and_query.
  HttpPostResult (*post)(const std::string& scheme_host_port, const std::string& path_and_query,
                         const std::string& body, const std::string& content_type,
                         int connect_timeout_s, int io_timeout_s);
};

inline constexpr uint32_t kHttpModuleVersion = 1;
inline constexpr const char* kHttpModuleFile = "strobe-agent-http.so";
inline constexpr const char* kHttpModuleSymbol = "strobe_agent_http_module";

// The module, loaded on the first call (an error with a hint when it is
// missing or does not load; the same answer after).
Result<const HttpModule*> httpModule();

}  // namespace strobe::agent
