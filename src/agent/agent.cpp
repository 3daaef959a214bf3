#include "agent/agent.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>

#include "base/log.hpp"

namespace strobe::agent {
namespace {

std::string unixRange(uint64_t from, uint64_t until) {
  return std::to_string(from) + ".." + std::to_string(until);
}

}  // namespace

Agent::Agent(AgentOptions opt)
    : opt_(std::move(opt)), debug_(std::getenv("STROBE_DEBUG") != nullptr) {}

AgentStats Agent::stats() const {
  AgentStats s = stats_;
  s.windows_answered = windows_answered_.load();
  s.profiles_queued = profiles_queued_.load();
  return s;
}

std::set<std::string> Agent::warnings() const {
  return namer_.warnings();
}

Labels Agent::labelsOf(const model::Profile& p) const {
  Labels labels;
  if (!p.meta().hostname.empty()) labels.emplace_back("host", p.meta().hostname);
  labels.insert(labels.end(), opt_.labels.begin(), opt_.labels.end());
  return labels;
}

NameJob Agent::jobFor(const model::Profile& p, model::Profile selected) const {
  NameJob job;
  job.labels = labelsOf(p);
  if (kept_ != nullptr) {
    for (const model::Module& m : selected.modules()) {
      const std::string& path = selected.str(m.path);
      const std::string& build_id = selected.str(m.build_id);
      // A descriptor of the job's own: the session may close its copy (the
      // process exited) before the Namer reads it.
      if (Fd fd = kept_->dupFor(path, build_id); fd.valid()) {
        job.kept.emplace(path + '\0' + build_id, "/proc/self/fd/" + std::to_string(fd.get()));
        job.kept_fds.push_back(std::move(fd));
      }
    }
  }
  job.profile = std::move(selected);
  return job;
}

void Agent::answerWindows(model::Profile& p, uint64_t complete_ns) {
  if (opt_.windows == nullptr) return;
  const uint64_t start = p.meta().start_monotonic_ns;
  for (auto& taken : opt_.windows->takeDue(start + complete_ns)) {
    std::shared_ptr<Window> w = std::move(taken);
    const uint64_t since = w->since_ns > start ? w->since_ns - start : 0;
    const uint64_t until = std::max(since, w->until_ns > start ? w->until_ns - start : 0);
    NameJob job = jobFor(p, selectSamples(p, since, until, w->selection));
    job.done = [this, w](Result<std::string> body) {
      w->reply.set_value(std::move(body));
      ++windows_answered_;
    };
    namer_.add(std::move(job));
  }
}

void Agent::queuePushes(model::Profile& p, uint64_t complete_ns) {
  if (opt_.push == nullptr) return;
  while (push_from_ns_ + opt_.push_interval_ns <= complete_ns) {
    const uint64_t until = push_from_ns_ + opt_.push_interval_ns;
    NameJob job = jobFor(p, selectSamples(p, push_from_ns_, until, Selection{}));
    const uint64_t real = p.meta().start_realtime_ns;
    const uint64_t from_unix = (real + push_from_ns_) / 1'000'000'000ULL;
    const uint64_t until_unix = (real + until) / 1'000'000'000ULL;
    push_from_ns_ = until;
    PushQueue* queue = opt_.push;
    job.done = [this, queue, from_unix, until_unix](Result<std::string> body) {
      if (!body) {
        logWarning("cannot encode the profile of " + unixRange(from_unix, until_unix) + ": " +
                   body.error().describe());
        return;
      }
      Push push;
      push.from_unix = from_unix;
      push.until_unix = until_unix;
      push.body = std::move(*body);
      ++profiles_queued_;
      if (std::optional<Push> dropped = queue->add(std::move(push))) {
        logWarning("push queue full (" + std::to_string(queue->capacity()) +
                       " profiles): dropped the oldest, of " +
                       unixRange(dropped->from_unix, dropped->until_unix) + "; " +
                       std::to_string(queue->dropped()) + " dropped so far",
                   "the backend has not taken profiles for a while; raise --push-queue to keep "
                   "more");
      }
    };
    namer_.add(std::move(job));
  }
}

void Agent::compact(model::Profile& p, const record::TickInfo& t, uint64_t complete_ns) {
  if (!t.compact || t.elapsed_ns < last_compaction_ns_ + kCompactEveryNs) return;
  last_compaction_ns_ = t.elapsed_ns;
  uint64_t keep_from = complete_ns;
  if (opt_.push != nullptr) keep_from = std::min(keep_from, push_from_ns_);
  if (opt_.windows != nullptr) {
    const uint64_t earliest = opt_.windows->earliestSince();
    const uint64_t start = p.meta().start_monotonic_ns;
    if (earliest != UINT64_MAX)
      keep_from = std::min(keep_from, earliest > start ? earliest - start : 0);
  }
  model::Compaction c = t.compact(keep_from);
  // What the compaction, the windows' copies and the encoders freed goes
  // back to the system, so RSS follows what is held.
  ::malloc_trim(0);
  ++stats_.compactions;
  stats_.samples_dropped += c.samples_dropped;
  stats_.stacks_dropped += c.stacks_dropped;
  if (debug_) {
    logInfo("debug: agent holds " + std::to_string(p.samples().size()) + " samples, " +
            std::to_string(p.stacks().size()) + " stacks, " + std::to_string(p.locations().size()) +
            " locations, " + std::to_string(p.functions().size()) + " functions, " +
            std::to_string(p.modules().size()) + " modules, " + std::to_string(p.threads().size()) +
            " threads, " + std::to_string(p.strings().size()) + " strings");
  }
}

bool Agent::onTick(model::Profile& p, const record::TickInfo& t) {
  kept_ = t.kept_files;
  const uint64_t complete = t.elapsed_ns > kSlackNs ? t.elapsed_ns - kSlackNs : 0;
  answerWindows(p, complete);
  queuePushes(p, complete);
  compact(p, t, complete);
  return true;
}

void Agent::finish() {
  namer_.stop();
  if (opt_.windows != nullptr) {
    opt_.windows->closeAll(makeError("the agent stopped before the profile was complete"));
  }
}

}  // namespace strobe::agent
