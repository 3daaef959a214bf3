// The HTTP endpoint: GET /debug/pprof/profile?seconds=N answers a pprof
// profile of the next N seconds (default 30, at most 3600), as Go's
// net/http/pprof does, so `go tool pprof http://HOST:PORT/debug/pprof/profile`
// works. One profile at a time: a request while one runs gets 429; a request
// while the program profiles itself through the API gets 409.
// A profile whose client goes away (closes or resets the connection) is
// stopped and discarded at once, freeing the endpoint.
// Abuse: each connection serves one request, whose line, headers and body
// must arrive within 5 s (slowloris cannot hold a worker); one client
// address has at most 4 connections in service, the others are closed, so
// other clients are served meanwhile. Binding an address other machines can
// reach (not loopback) prints a warning.
// The server (cpp-httplib) runs on libstrobe's own threads, never sampled.
// Thread safety: serveHttp may be called from any thread; one server per
// process (a second call fails).
#pragma once

#include <string>

#include "base/result.hpp"

namespace strobe::inproc {

// addr: "HOST:PORT" or ":PORT" (HOST 127.0.0.1). Port 0 picks a free port.
Status serveHttp(const std::string& addr);
// The bound port, 0 when not serving.
int httpPort();

}  // namespace strobe::inproc
