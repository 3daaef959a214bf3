#include "agent/agent.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>

#include "base/log.hpp"

namespace strobe::agent {
namespace {

// How long a tick waits for debug information before it goes back to
// draining: the rest is named at a later tick.
constexpr uint64_t kSymbolizeWaitNs = 50'000'000;

std::string unixRange(uint64_t from, uint64_t until) {
  return std::to_string(from) + ".." + std::to_string(until);
}

}  // namespace

Agent::Agent(AgentOptions opt)
    : opt_(std::move(opt)), debug_(std::getenv("STROBE_DEBUG") != nullptr) {
  renewSymbolizer();
}

void Agent::renewSymbolizer() {
  if (symbolizer_) warnings_.insert(symbolizer_->warnings().begin(), symbolizer_->warnings().end());
  symbolizer_ = std::make_unique<symbolize::IncrementalSymbolizer>(
      [this](const std::string& path, const std::string& build_id) {
        return kept_ != nullptr ? kept_->pathFor(path, build_id) : std::string();
      });
}

std::set<std::string> Agent::warnings() const {
  std::set<std::string> all = warnings_;
  all.insert(symbolizer_->warnings().begin(), symbolizer_->warnings().end());
  return all;
}

Labels Agent::labelsOf(const model::Profile& p) const {
  Labels labels;
  if (!p.meta().hostname.empty()) labels.emplace_back("host", p.meta().hostname);
  labels.insert(labels.end(), opt_.labels.begin(), opt_.labels.end());
  return labels;
}

void Agent::nameAll(model::Profile& p) {
  symbolizer_idle_ = symbolizer_->step(p, symbolize::IncrementalSymbolizer::kForever);
}

void Agent::answerWindows(model::Profile& p, uint64_t complete_ns) {
  if (opt_.windows == nullptr) return;
  const uint64_t start = p.meta().start_monotonic_ns;
  auto due = opt_.windows->takeDue(start + complete_ns);
  if (due.empty()) return;
  nameAll(p);
  for (auto& w : due) {
    const uint64_t since = w->since_ns > start ? w->since_ns - start : 0;
    const uint64_t until = std::max(since, w->until_ns > start ? w->until_ns - start : 0);
    model::Profile selected = selectSamples(p, since, until, w->selection);
    w->reply.set_value(encodePprof(selected, labelsOf(p)));
    ++stats_.windows_answered;
  }
}

void Agent::queuePushes(model::Profile& p, uint64_t complete_ns) {
  if (opt_.push == nullptr) return;
  while (push_from_ns_ + opt_.push_interval_ns <= complete_ns) {
    const uint64_t until = push_from_ns_ + opt_.push_interval_ns;
    nameAll(p);
    model::Profile selected = selectSamples(p, push_from_ns_, until, Selection{});
    const uint64_t real = p.meta().start_realtime_ns;
    Push push;
    push.from_unix = (real + push_from_ns_) / 1'000'000'000ULL;
    push.until_unix = (real + until) / 1'000'000'000ULL;
    push_from_ns_ = until;
    Result<std::string> body = encodePprof(selected, labelsOf(p));
    if (!body) {
      logWarning("cannot encode the profile of " + unixRange(push.from_unix, push.until_unix) +
                 ": " + body.error().describe());
      continue;
    }
    push.body = std::move(*body);
    ++stats_.profiles_queued;
    if (std::optional<Push> dropped = opt_.push->add(std::move(push))) {
      logWarning("push queue full (" + std::to_string(opt_.push->capacity()) +
                     " profiles): dropped the oldest, of " +
                     unixRange(dropped->from_unix, dropped->until_unix) + "; " +
                     std::to_string(opt_.push->dropped()) + " dropped so far",
                 "the backend has not taken profiles for a while; raise --push-queue to keep "
                 "more");
    }
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
  symbolizer_idle_ = symbolizer_->step(p, kSymbolizeWaitNs);
  answerWindows(p, complete);
  queuePushes(p, complete);
  compact(p, t, complete);
  if (symbolizer_idle_ && t.elapsed_ns >= symbolizer_since_ns_ + kRenewSymbolizerNs) {
    symbolizer_since_ns_ = t.elapsed_ns;
    renewSymbolizer();
    ::malloc_trim(0);
  }
  return true;
}

void Agent::finish() {
  if (opt_.windows != nullptr) {
    opt_.windows->closeAll(makeError("the agent stopped before the profile was complete"));
  }
}

}  // namespace strobe::agent
