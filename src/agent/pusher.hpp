// Pusher: sends the queued profiles to a Pyroscope-compatible ingest
// endpoint, oldest first, on a thread of its own:
//   POST BASE/ingest?name=APP{host=H,k=v,...}&from=UNIX&until=UNIX
//        &format=pprof&sampleRate=HZ&spyName=strobe
// with the gzipped pprof profile as the body (application/octet-stream).
// A profile stays queued until the backend answers 2xx; after a failure the
// pusher waits and retries with exponential backoff (0.5 s doubling up to
// max_backoff), logging the first failure of an outage and the recovery
// (with the queue's length and what it dropped). A 4xx answer other than
// 429 is the profile's fault: it is dropped (counted and logged), not
// retried. Owns: its thread (joined by stop() or the destructor).
// Thread safety: construct, start and stop on one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/push_queue.hpp"
#include "base/result.hpp"

namespace strobe::agent {

struct PushTarget {
  std::string url;                                          // as given, for messages
  std::string scheme_host_port;                             // "http://host:port"
  std::string base_path;                                    // "" or "/prefix" (no trailing slash)
  std::string app;                                          // --app
  std::vector<std::pair<std::string, std::string>> labels;  // host first, then --label
  uint32_t sample_rate = 0;                                 // Hz
};

// Parses --push URL ("http://HOST[:PORT][/PATH]"); kUsage errors with a hint.
Result<PushTarget> parsePushUrl(const std::string& url);
// Checks an --app name or a --label key (letters, digits, '_', '-', '.';
// label keys no '-' or '.') and a label value (no '{', '}', ',', '=').
Status checkAppName(const std::string& app);
Status checkLabel(const std::string& key, const std::string& value);

// The path and query of one push, its parameters URL-encoded.
std::string ingestPath(const PushTarget& t, const Push& p);

class Pusher {
 public:
  Pusher(PushTarget target, PushQueue& queue, std::chrono::milliseconds max_backoff);
  ~Pusher();
  Pusher(const Pusher&) = delete;
  Pusher& operator=(const Pusher&) = delete;

  void start();
  // Stops retrying and joins the thread (what is queued is not sent).
  void stop();

  uint64_t pushed() const { return pushed_.load(); }
  uint64_t failures() const { return failures_.load(); }

 private:
  void run();
  // One POST: true when the backend took it; `retry` false when it refused
  // the profile itself (4xx).
  bool post(const Push& p, bool& retry, std::string& why);

  PushTarget target_;
  PushQueue& queue_;
  std::chrono::milliseconds max_backoff_;
  std::thread thread_;
  std::atomic<uint64_t> pushed_{0};
  std::atomic<uint64_t> failures_{0};
};

}  // namespace strobe::agent
