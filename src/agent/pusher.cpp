#include "agent/pusher.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "agent/http_module.hpp"
#include "base/log.hpp"

namespace strobe::agent {
namespace {

constexpr std::chrono::milliseconds kFirstBackoff{500};

std::string urlEncode(const std::string& s) {
  std::string out;
  char hex[4];
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

bool nameChar(char c, bool dots) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         (dots && (c == '-' || c == '.'));
}

}  // namespace

Result<PushTarget> parsePushUrl(const std::string& url) {
  const std::string kHint = "give the backend's base URL, e.g. --push http://pyroscope:4040";
  PushTarget t;
  t.url = url;
  if (url.rfind("https://", 0) == 0) {
    return makeError("--push " + url + ": https is not supported",
                     "push over http, e.g. to a local Grafana Alloy or a TLS-terminating proxy",
                     ErrorKind::kUsage);
  }
  if (url.rfind("http://", 0) != 0) {
    return makeError("--push " + url + " is not an http:// URL", kHint, ErrorKind::kUsage);
  }
  std::string rest = url.substr(7);
  size_t slash = rest.find('/');
  std::string host_port = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? std::string() : rest.substr(slash);
  if (host_port.empty() || host_port.find_first_of("?#@ ") != std::string::npos ||
      path.find_first_of("?# ") != std::string::npos) {
    return makeError("--push " + url + " is not a base URL", kHint, ErrorKind::kUsage);
  }
  if (size_t colon = host_port.rfind(':'); colon != std::string::npos) {
    const std::string port = host_port.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(port) == 0 || std::stoi(port) > 65535) {
      return makeError("--push " + url + " has a bad port", kHint, ErrorKind::kUsage);
    }
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() >= 7 && path.compare(path.size() - 7, 7, "/ingest") == 0) {
    path.resize(path.size() - 7);  // the endpoint itself was given
  }
  t.scheme_host_port = "http://" + host_port;
  t.base_path = path;
  return t;
}

Status checkAppName(const std::string& app) {
  if (app.empty() ||
      !std::all_of(app.begin(), app.end(), [](char c) { return nameChar(c, true); })) {
    return makeError("--app '" + app + "' is not an application name",
                     "use letters, digits, '_', '-' and '.', e.g. --app web.cpu",
                     ErrorKind::kUsage);
  }
  return {};
}

Status checkLabel(const std::string& key, const std::string& value) {
  const bool key_ok =
      !key.empty() && std::isdigit(static_cast<unsigned char>(key[0])) == 0 &&
      std::all_of(key.begin(), key.end(), [](char c) { return nameChar(c, false); });
  if (!key_ok) {
    return makeError(
        "--label key '" + key + "' is not a label name",
        "use letters, digits and '_', not starting with a digit, e.g. --label env=prod",
        ErrorKind::kUsage);
  }
  if (value.empty() || value.find_first_of("{},=") != std::string::npos) {
    return makeError("--label " + key + "=" + value + ": the value is empty or holds {, }, , or =",
                     "give a plain value, e.g. --label env=prod", ErrorKind::kUsage);
  }
  return {};
}

std::string ingestPath(const PushTarget& t, const Push& p) {
  std::string name = t.app + "{";
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (i > 0) name += ",";
    name += t.labels[i].first + "=" + t.labels[i].second;
  }
  name += "}";
  return t.base_path + "/ingest?name=" + urlEncode(name) + "&from=" + std::to_string(p.from_unix) +
         "&until=" + std::to_string(p.until_unix) +
         "&format=pprof&sampleRate=" + std::to_string(t.sample_rate) + "&spyName=strobe";
}

Pusher::Pusher(PushTarget target, PushQueue& queue, std::chrono::milliseconds max_backoff)
    : target_(std::move(target)),
      queue_(queue),
      max_backoff_(std::max(max_backoff, kFirstBackoff)) {}

Pusher::~Pusher() {
  stop();
}

void Pusher::start() {
  thread_ = std::thread([this] { run(); });
}

void Pusher::stop() {
  queue_.stop();
  if (thread_.joinable()) thread_.join();
}

bool Pusher::post(const Push& p, bool& retry, std::string& why) {
  retry = true;
  auto module = httpModule();
  if (!module) {
    why = module.error().message;
    return false;
  }
  HttpPostResult res = (*module)->post(target_.scheme_host_port, ingestPath(target_, p), p.body,
                                       "application/octet-stream", 5, 10);
  if (!res.sent) {
    why = res.error;
    return false;
  }
  if (res.status >= 200 && res.status < 300) return true;
  why = "HTTP " + std::to_string(res.status);
  std::string body = res.body.substr(0, 200);
  std::replace_if(
      body.begin(), body.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  if (!body.empty()) why += ": " + body;
  retry = res.status == 429 || res.status == 408 || res.status >= 500;
  return false;
}

void Pusher::run() {
  std::chrono::milliseconds backoff = kFirstBackoff;
  uint64_t failed_in_a_row = 0;
  for (;;) {
    std::optional<Push> p = queue_.front(std::chrono::milliseconds(1000));
    if (!p) {
      if (!queue_.sleepFor(std::chrono::milliseconds(0))) return;  // stopped
      continue;
    }
    bool retry = true;
    std::string why;
    if (post(*p, retry, why)) {
      queue_.popIf(p->from_unix, p->until_unix);
      pushed_.fetch_add(1);
      if (failed_in_a_row > 0) {
        logInfo("pushing to " + target_.url + " again after " + std::to_string(failed_in_a_row) +
                " failed attempts; queue " + std::to_string(queue_.size()) + "/" +
                std::to_string(queue_.capacity()) + ", " + std::to_string(queue_.dropped()) +
                " profiles dropped so far");
      }
      failed_in_a_row = 0;
      backoff = kFirstBackoff;
      continue;
    }
    failures_.fetch_add(1);
    if (!retry) {
      queue_.popIf(p->from_unix, p->until_unix);
      logWarning("the backend refused a profile (" + why + "); dropped it",
                 "check --app and --label against what the backend accepts");
      continue;
    }
    if (failed_in_a_row++ == 0) {
      logWarning("cannot push to " + target_.url + " (" + why +
                     "); retrying with backoff, keeping up to " +
                     std::to_string(queue_.capacity()) + " profiles",
                 "check that the backend runs and listens there");
    }
    if (!queue_.sleepFor(backoff)) return;
    backoff = std::min(backoff * 2, max_backoff_);
  }
}

}  // namespace strobe::agent
