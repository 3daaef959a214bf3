#include "record/span_receiver.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "model/spans.hpp"

namespace strobe::record {

// Channel records into the receiver's tables, for one process.
class ReceiverSink final : public channel::Sink {
 public:
  ReceiverSink(SpanReceiver& r, int32_t pid) : r_(r), pid_(pid) {}
  void span(const channel::SpanEvent& s) override {
    if (r_.live_roles_) return;
    auto it = r_.name_ids_.find(s.name);
    if (it == r_.name_ids_.end()) {
      it = r_.name_ids_.emplace(std::string(s.name), static_cast<uint32_t>(r_.names_.size())).first;
      r_.names_.emplace_back(s.name);
    }
    r_.spans_.push_back(SpanReceiver::Span{s.tid, s.depth, s.start_ns, s.end_ns, it->second});
  }
  void role(int32_t tid, std::string_view role, int32_t index) override {
    r_.roles_[tid] = SpanReceiver::Role{pid_, model::roleLabel(role, index)};
    if (r_.live_roles_) r_.new_roles_.push_back(tid);
  }

 private:
  SpanReceiver& r_;
  int32_t pid_;
};

Status SpanReceiver::listen() {
  auto l = channel::Listener::open();
  if (!l.ok()) return l.takeError();
  listener_ = std::move(*l);
  return {};
}

std::string SpanReceiver::environment() const {
  if (!listener_) return {};
  return std::string(channel::kEnvVar) + "=" + listener_->address();
}

int SpanReceiver::fd() const {
  return listener_ ? listener_->fd() : -1;
}

void SpanReceiver::add(int32_t pid, Fd fd, bool adopt, std::vector<std::string>* warnings) {
  auto c = channel::Consumer::open(std::move(fd));
  Status joined;
  if (c.ok()) {
    const auto self = static_cast<int32_t>(::getpid());
    joined = adopt ? (*c)->adopt(channel::kReaderExternal, self)
                   : (*c)->join(channel::kReaderExternal, self);
  }
  const Error* e = !c.ok() ? &c.error() : !joined.ok() ? &joined.error() : nullptr;
  if (e != nullptr) {
    std::string line = "no spans from process " + std::to_string(pid) + ": " + e->describe();
    if (warnings != nullptr) {
      warnings->push_back(line);
    } else {
      problems_.push_back(line);
    }
    return;
  }
  sources_.push_back(Source{pid, std::move(*c)});
}

void SpanReceiver::attach(pid_t pid, std::vector<std::string>& warnings) {
  int n = channel::findChannel(pid);
  if (n < 0) return;  // no libstrobe, or it made no channel yet
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(n);
  Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) {
    warnings.push_back("no spans from process " + std::to_string(pid) + ": cannot open " + path +
                       ": " + std::strerror(errno));
    return;
  }
  add(static_cast<int32_t>(pid), std::move(fd), /*adopt=*/false, &warnings);
}

void SpanReceiver::poll() {
  if (listener_) {
    for (auto& a : listener_->receive()) add(a.pid, std::move(a.channel), /*adopt=*/true, nullptr);
  }
  for (Source& s : sources_) {
    ReceiverSink sink(*this, s.pid);
    s.consumer->drain(sink);
  }
}

void SpanReceiver::applyRoles(model::Profile& p) {
  for (int32_t tid : new_roles_) {
    auto it = roles_.find(tid);
    if (it == roles_.end()) continue;
    model::Thread t;
    if (const model::Thread* known = p.findThread(tid)) {
      t = *known;
    } else {
      t.tid = tid;
      t.pid = it->second.pid;
    }
    t.role = it->second.label;
    p.setThread(std::move(t));
  }
  new_roles_.clear();
}

void SpanReceiver::discover(const std::vector<int32_t>& pids, uint64_t now_ns) {
  std::vector<std::string> warnings;  // a process whose channel cannot be opened: no roles
  for (int32_t pid : pids) {
    auto [it, fresh] = looked_for_.try_emplace(pid, now_ns);
    if (!fresh && it->second + kDiscoverEveryNs > now_ns) continue;
    it->second = now_ns;
    const bool joined = std::any_of(sources_.begin(), sources_.end(),
                                    [pid](const Source& s) { return s.pid == pid; });
    if (!joined) attach(pid, warnings);
  }
  // Processes that are gone: their channels (and what is remembered of them) go.
  if (now_ns < next_prune_ns_) return;
  next_prune_ns_ = now_ns + kDiscoverEveryNs;
  for (auto it = looked_for_.begin(); it != looked_for_.end();) {
    if (it->second + kDiscoverEveryNs <= now_ns && ::kill(it->first, 0) != 0 && errno == ESRCH) {
      it = looked_for_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(sources_, [](const Source& s) { return ::kill(s.pid, 0) != 0 && errno == ESRCH; });
  std::erase_if(roles_,
                [](const auto& r) { return ::kill(r.second.pid, 0) != 0 && errno == ESRCH; });
}

void SpanReceiver::finish(model::Profile& p, uint64_t start_monotonic_ns,
                          std::vector<std::string>& warnings) {
  poll();
  uint64_t lost = 0;
  uint64_t rejoined = 0;
  for (Source& s : sources_) {
    const channel::ReaderStats& st = s.consumer->stats();
    lost += st.lost();
    rejoined += st.rejoined;
    s.consumer.reset();  // leaves: the program stops recording spans for strobe
  }
  sources_.clear();
  listener_.reset();
  for (std::string& w : problems_) warnings.push_back(std::move(w));
  problems_.clear();

  std::vector<model::StringId> name_ids(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) name_ids[i] = p.internString(names_[i]);
  auto rel = [&](uint64_t t) { return t >= start_monotonic_ns ? t - start_monotonic_ns : 0; };
  for (const Span& s : spans_) {
    p.addSpan(model::Span{s.tid, s.depth, rel(s.start_ns), rel(s.end_ns), name_ids[s.name]});
  }
  for (const auto& [tid, role] : roles_) {
    model::Thread t;
    if (const model::Thread* known = p.findThread(tid)) {
      t = *known;
    } else {
      t.tid = tid;
      t.pid = role.pid;
    }
    t.role = role.label;
    p.setThread(std::move(t));
  }
  p.meta().dropped_spans += lost;
  if (lost > 0) {
    warnings.push_back(std::to_string(lost) +
                       " spans were not recorded: a thread's span buffer was full (it holds "
                       "16,384 spans between strobe's reads, every 100 ms), spans nested deeper "
                       "than 64, or more than 256 threads had spans at once");
  }
  if (rejoined > 0) {
    warnings.push_back("strobe read spans too late " + std::to_string(rejoined) +
                       " times (the program presumed it gone); spans open then were lost");
  }
  spans_.clear();
  roles_.clear();
}

}  // namespace strobe::record
