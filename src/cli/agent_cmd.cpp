// strobe agent [--http ADDR] [--push URL --app NAME [--label K=V]... [--interval DUR]
//              [--push-queue N]] [-F HZ] [-g MODE] [--off-cpu] [-k] [-d DUR]
//              [-a | -p PID,... | -P NAME]
// The host agent: record's session run until a signal, serving profiles
// over HTTP and/or pushing them (src/agent).
#include <fmt/format.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "agent/agent.hpp"
#include "agent/http_endpoint.hpp"
#include "agent/http_module.hpp"
#include "agent/pusher.hpp"
#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/record_args.hpp"
#include "record/options.hpp"
#include "record/session.hpp"

namespace strobe::cli {
namespace {

const CommandUsage kAgentUsage{
    "-a, -p PID, -P NAME",
    "usage: strobe agent --http ADDR | --push URL --app NAME [-a | -p PID | -P NAME]",
    "usage: strobe agent --http ADDR | --push URL --app NAME [-a | -p PID | -P NAME]"};

struct AgentArgs {
  RecordArgs rec;
  std::string http;
  std::string push;
  std::string app;
  std::vector<std::string> labels;
  std::string interval = "15s";
  size_t push_queue = 20;
};

int runAgent(AgentArgs& a) {
  if (a.http.empty() && a.push.empty()) {
    logError("strobe agent needs somewhere to send profiles",
             "give --http 127.0.0.1:6060 (to be scraped), --push URL --app NAME, or both");
    return kExitUsage;
  }
  if (!a.rec.command.empty()) {
    logError("strobe agent profiles running processes, not a command",
             "use -a (every process), -p PID or -P NAME; strobe record or top run a command");
    return kExitUsage;
  }
  std::optional<agent::PushTarget> target;
  uint64_t interval_ns = 0;
  if (!a.push.empty()) {
    auto t = agent::parsePushUrl(a.push);
    if (!t) {
      logError(t.error());
      return kExitUsage;
    }
    if (a.app.empty()) {
      logError("--push needs --app NAME",
               "name the application profiles are stored under, e.g. --app web");
      return kExitUsage;
    }
    if (auto st = agent::checkAppName(a.app); !st) {
      logError(st.error());
      return kExitUsage;
    }
    t->app = a.app;
    for (const std::string& kv : a.labels) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        logError("--label " + kv + " is not KEY=VALUE", "e.g. --label env=prod");
        return kExitUsage;
      }
      if (auto st = agent::checkLabel(kv.substr(0, eq), kv.substr(eq + 1)); !st) {
        logError(st.error());
        return kExitUsage;
      }
      t->labels.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    auto interval = record::parseSessionDuration(a.interval);
    if (!interval) {
      logError(interval.error());
      return kExitUsage;
    }
    if (*interval < 1'000'000'000ULL) {
      logError("--interval " + a.interval + " is shorter than a second",
               "profiles are stamped in whole seconds; use --interval 1s or more (15s is usual)");
      return kExitUsage;
    }
    interval_ns = *interval;
    if (a.push_queue == 0) {
      logError("--push-queue 0 keeps no profile while the backend is down",
               "give the number of profiles to keep, e.g. --push-queue 20");
      return kExitUsage;
    }
    target = std::move(*t);
  } else if (!a.app.empty() || !a.labels.empty()) {
    logError("--app and --label name pushed profiles", "add --push URL");
    return kExitUsage;
  }
  if (a.rec.pids.empty() && a.rec.process_name.empty()) a.rec.all_cpus = true;
  record::RecordOptions opt;
  if (int rc = toRecordOptions(a.rec, kAgentUsage, opt); rc != 0) return rc;

  // Few malloc arenas: the agent's threads (HTTP, push, symbolizing) hold
  // little each, and an arena per thread would keep its freed memory.
  ::mallopt(M_ARENA_MAX, 2);
  agent::Windows windows;
  std::unique_ptr<agent::HttpEndpoint> endpoint;
  if (!a.http.empty()) {
    auto e = agent::HttpEndpoint::listen(a.http, windows);
    if (!e) {
      logError(e.error());
      return exitCodeFor(e.error());
    }
    endpoint = std::move(*e);
    logInfo(fmt::format("serving pprof profiles on http://{}:{}/debug/pprof/profile",
                        endpoint->host(), endpoint->port()));
  }
  agent::PushQueue queue(a.push_queue);
  std::unique_ptr<agent::Pusher> pusher;
  agent::AgentOptions ao;
  if (endpoint) ao.windows = &windows;
  if (target) {
    // Pushing needs the HTTP module: say so now, not at the first push.
    if (auto m = agent::httpModule(); !m) {
      logError(m.error());
      return exitCodeFor(m.error());
    }
    target->sample_rate = opt.frequency;
    // The host name leads the series labels (the session knows it; so does gethostname).
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
      target->labels.insert(target->labels.begin(), {"host", host});
    }
    ao.push = &queue;
    ao.push_interval_ns = interval_ns;
    const auto max_backoff =
        std::chrono::milliseconds(std::clamp<uint64_t>(2 * interval_ns / 1'000'000, 1'000, 60'000));
    logInfo(fmt::format("pushing a profile every {} to {}", a.interval, target->url));
    pusher = std::make_unique<agent::Pusher>(std::move(*target), queue, max_backoff);
    pusher->start();
  }
  agent::Agent agent(ao);
  opt.live_roles = true;  // role labels while the agent runs
  opt.tick_ns = agent::kTickNs;
  opt.on_tick = [&agent](model::Profile& p, const record::TickInfo& t) {
    return agent.onTick(p, t);
  };
  model::Profile profile;
  auto outcome = record::record(opt, profile);
  agent.finish();
  if (pusher) pusher->stop();
  endpoint.reset();
  if (!outcome) {
    logError(outcome.error());
    return exitCodeFor(outcome.error());
  }
  for (const std::string& w : agent.warnings()) logWarning(w);
  for (const std::string& w : outcome->warnings) logWarning(w);
  const agent::AgentStats s = agent.stats();
  logInfo(
      fmt::format("agent stopped: {} profiles served, {} pushed, {} dropped, {} not sent; "
                  "{} samples, {} lost",
                  s.windows_answered, pusher ? pusher->pushed() : 0, queue.dropped(),
                  pusher ? queue.size() : 0, outcome->stats.samples, outcome->stats.lost));
  return 0;
}

}  // namespace

Runner addAgentCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command) {
  auto args = std::make_shared<AgentArgs>();
  CLI::App* sub = app.add_subcommand(
      "agent", "Profile the host continuously; serve pprof profiles over HTTP or push them");
  addSamplingOptions(sub, args->rec);
  sub->add_flag("-a,--all-cpus", args->rec.all_cpus,
                "Sample every process on every CPU (the default without -p or -P)");
  sub->add_option("--http", args->http,
                  "Serve GET /debug/pprof/profile?seconds=N[&pid=PID][&comm=NAME] on HOST:PORT "
                  "(e.g. 127.0.0.1:6060), as Go programs do");
  sub->add_option("--push", args->push,
                  "Push a profile every --interval to this Pyroscope-compatible URL "
                  "(e.g. http://pyroscope:4040; POST /ingest)");
  sub->add_option("--app", args->app, "--push: the application name profiles are stored under");
  sub->add_option("--label", args->labels, "--push: a KEY=VALUE label of the series (repeatable)");
  sub->add_option("--interval", args->interval, "--push: time covered by each profile")
      ->capture_default_str();
  sub->add_option("--push-queue", args->push_queue,
                  "--push: profiles kept while the backend is down; then the oldest is dropped")
      ->capture_default_str();
  sub->allow_extras();  // a command given anyway is refused with a hint (runAgent)
  sub->footer(
      std::string(
          "Examples: strobe agent --http 127.0.0.1:6060\n"
          "          strobe agent --push http://pyroscope:4040 --app hosts --label env=prod\n"
          "Runs until SIGINT or SIGTERM (or, with -p/-P, until the processes exit).\n") +
      kExitCodesHelp);
  return [args, sub, has_dashes, command] {
    if (int rc = takeCommand(args->rec, sub, has_dashes, command, kAgentUsage); rc != 0) return rc;
    return runAgent(*args);
  };
}

}  // namespace strobe::cli
