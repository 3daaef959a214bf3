// strobe-agent-http.so: the agent's HTTP server and client on cpp-httplib
// (http_module.hpp says why this is a module).
#include "agent/http_module.hpp"

#include <httplib.h>

namespace strobe::agent {
namespace {

void answer(const HttpHandler& handler, const httplib::Request& req, httplib::Response& res) {
  HttpRequest in;
  in.method = req.method;
  in.params.insert(req.params.begin(), req.params.end());
  HttpResponse out;
  handler(in, out);
  res.status = out.status;
  for (const auto& [name, value] : out.headers) res.set_header(name, value);
  res.set_content(out.body, out.content_type);
}

class Server final : public HttpServer {
 public:
  Server(unsigned threads, int read_timeout_s) {
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_read_timeout(read_timeout_s, 0);
  }
  void get(const std::string& path, HttpHandler handler) override {
    server_.Get(path, [h = std::move(handler)](const httplib::Request& req,
                                               httplib::Response& res) { answer(h, req, res); });
  }
  void post(const std::string& path, HttpHandler handler) override {
    server_.Post(path, [h = std::move(handler)](const httplib::Request& req,
                                                httplib::Response& res) { answer(h, req, res); });
  }
  int bind(const std::string& host, int port) override {
    if (port == 0) return server_.bind_to_any_port(host);
    return server_.bind_to_port(host, port) ? port : -1;
  }
  void listenAfterBind() override { server_.listen_after_bind(); }
  void stop() override { server_.stop(); }

 private:
  httplib::Server server_;
};

std::unique_ptr<HttpServer> newServer(unsigned threads, int read_timeout_s) {
  return std::make_unique<Server>(threads, read_timeout_s);
}

HttpPostResult post(const std::string& scheme_host_port, const std::string& path_and_query,
                    const std::string& body, const std::string& content_type, int connect_timeout_s,
                    int io_timeout_s) {
  httplib::Client client(scheme_host_port);
  client.set_connection_timeout(connect_timeout_s, 0);
  client.set_read_timeout(io_timeout_s, 0);
  client.set_write_timeout(io_timeout_s, 0);
  auto res = client.Post(path_and_query, body, content_type);
  HttpPostResult out;
  if (!res) {
    out.error = httplib::to_string(res.error());
    return out;
  }
  out.sent = true;
  out.status = res->status;
  out.body = std::move(res->body);
  return out;
}

const HttpModule kModule{kHttpModuleVersion, &newServer, &post};

}  // namespace
}  // namespace strobe::agent

extern "C" __attribute__((visibility("default"))) const strobe::agent::HttpModule*
strobe_agent_http_module() {
  return &strobe::agent::kModule;
}
