#include "record/session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.hpp"
#include "model/measure.hpp"
#include "perf/event.hpp"
#include "record/command_watch.hpp"
#include "record/engine.hpp"
#include "record/event_queue.hpp"
#include "record/jit_follow.hpp"
#include "record/launch.hpp"
#include "record/proc.hpp"
#include "record/session_signals.hpp"
#include "record/span_receiver.hpp"

namespace strobe::record {
namespace {

// A record read in one drain pass may be older than one still unread in
// another ring by at most the time a pass takes; hold records this long.
constexpr uint64_t kReorderSlackNs = 20'000'000;
constexpr int kPollTimeoutMs = 100;
// Mapped files held open for symbolization (see kept_files.hpp).
constexpr size_t kMaxKeptFiles = 256;
// Live roles, system-wide: how often the processes sampled lately are
// looked at for span channels (each at most every kDiscoverEveryNs).
constexpr uint64_t kDiscoverNs = 1'000'000'000;
// Attached: how often the targets' CPU (/proc) is read and their life checked.
constexpr uint64_t kTargetCheckNs = 100'000'000;

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string kernelRelease() {
  struct utsname u = {};
  if (::uname(&u) != 0) return {};
  return u.release;
}

// Milliseconds until `when` (0 when past), at most kPollTimeoutMs.
int msUntil(uint64_t when, uint64_t now) {
  const uint64_t left_ms = when > now ? (when - now + 999'999) / 1'000'000 : 0;
  return static_cast<int>(std::min<uint64_t>(left_ms, kPollTimeoutMs));
}

class Session {
 public:
  Session(const RecordOptions& opt, model::Profile& profile) : opt_(opt), profile_(profile) {}

  Result<RecordOutcome> run();

 private:
  Status checkOptions() const;
  Status checkTargets() const;
  // Spawns the held command (launch) and opens the engine on the targets.
  Status open();
  void fillMeta();
  void setUpConverter();
  void synthesize(pid_t pid);
  // One pass of the drain loop; true when the recording ends.
  bool pass(uint64_t pass_start);
  void tick(uint64_t pass_start);
  // Waits for records, a signal or a child's exit, at most until the next
  // deadline or tick.
  void waitForWork(uint64_t pass_start);
  void finish(RecordOutcome& outcome, uint64_t end);
  bool targetsAlive() const;
  void readTargetCpu(bool first);
  // The processes of the samples taken since `since_ns` (since the start).
  std::vector<int32_t> sampledPidsSince(uint64_t since_ns) const;

  const RecordOptions& opt_;
  model::Profile& profile_;
  bool launch_ = false;
  std::unique_ptr<CaptureEngine> engine_;
  EngineKind engine_kind_ = EngineKind::kPerf;
  EngineTargets targets_;
  std::optional<HeldChild> child_;
  std::optional<CommandWatch> watch_;
  std::unique_ptr<EventQueue> queue_;
  std::unique_ptr<Converter> converter_;
  std::unique_ptr<KeptFiles> kept_;
  JitFollow jit_;  // JIT code's names, read as the runtimes write them
  SpanReceiver spans_;
  std::unordered_map<std::string, std::string> build_ids_;  // by path
  std::vector<std::string> warnings_;
  std::string kernel_refused_;  // why kernel time is not sampled
  // Attach: each target's CPU when recording began and when last read.
  std::unordered_map<pid_t, std::pair<ProcessCpu, ProcessCpu>> target_cpu_;
  Fd wake_read_;
  Fd wake_write_;
  std::vector<pollfd> fds_;
  uint64_t deadline_ = UINT64_MAX;  // a live view's tick may move it earlier
  uint64_t next_tick_ = UINT64_MAX;
  uint64_t last_target_check_ = 0;
  uint64_t next_discovery_ = 0;  // live roles, -a: when to look for new channels next
  uint64_t last_discovery_ = 0;  // ... and the sample time the last look covered
};

std::vector<int32_t> Session::sampledPidsSince(uint64_t since_ns) const {
  std::unordered_set<int32_t> pids;
  const std::vector<model::Sample>& samples = profile_.samples();
  for (size_t i = samples.size(); i-- > 0 && samples[i].time_ns >= since_ns;) {
    const model::Thread* t = profile_.findThread(samples[i].tid);
    pids.insert(t != nullptr && t->pid != 0 ? t->pid : samples[i].tid);
  }
  return {pids.begin(), pids.end()};
}

void Session::readTargetCpu(bool first) {
  for (pid_t pid : opt_.pids) {
    auto cpu = readProcessCpu(pid);
    if (!cpu || (!first && target_cpu_.count(pid) == 0)) continue;
    auto& [start, last] = target_cpu_[pid];
    if (first) start = *cpu;
    last = *cpu;
  }
}

bool Session::targetsAlive() const {
  return std::any_of(opt_.pids.begin(), opt_.pids.end(), [](pid_t p) { return processAlive(p); });
}

Status Session::checkOptions() const {
  if (auto tc = perf::eventTypeConfig(opt_.event); !tc) return tc.takeError();
  if (!opt_.off_cpu) return {};
  if (model::kindOfEvent(opt_.event) != model::SampleKind::kCpu) {
    return makeError(
        "--off-cpu needs a time event, not " + opt_.event + ": off-CPU time is added to CPU time",
        "use -e cpu-clock (the default) or -e task-clock", ErrorKind::kUsage);
  }
  if (!opt_.callchain && opt_.stack_copy_bytes == 0) {
    return makeError("--off-cpu needs call stacks: where a thread waits is its stack",
                     "use -g fp, -g dwarf or -g auto instead of -g none", ErrorKind::kUsage);
  }
  return {};
}

Status Session::checkTargets() const {
  if (launch_ || opt_.system_wide) return {};
  if (opt_.pids.empty()) {
    return makeError("nothing to record", "give a command, -p PID, -P NAME or -a",
                     ErrorKind::kUsage);
  }
  for (pid_t pid : opt_.pids) {
    if (!processExists(pid)) {
      return makeError("no process with pid " + std::to_string(pid),
                       "check the pid; the process may have exited", ErrorKind::kNotFound);
    }
  }
  return {};
}

Status Session::open() {
  targets_.kernel_time = !opt_.kernel;
  if (targets_.kernel_time) {
    // Without the privilege, user time only, and every report says so.
    if (auto st = perf::probeKernelSampling(); !st && st.error().kind == ErrorKind::kPermission) {
      targets_.kernel_time = false;
      kernel_refused_ = st.error().message;
    }
  }
  if (launch_) {
    std::vector<std::string> env;
    if (opt_.spans) {
      if (auto st = spans_.listen(); !st) {
        warnings_.push_back("spans are not recorded: " + st.error().describe());
      } else {
        env.push_back(spans_.environment());
      }
    }
    if (std::string jit_env = jit_.launchEnvironment(); !jit_env.empty()) {
      env.push_back(std::move(jit_env));
    }
    auto held = HeldChild::spawn(opt_.command, env);
    if (!held) return held.takeError();
    child_.emplace(std::move(*held));
    targets_.command = child_->pid();
    // With inherit, the command's children are followed until they end, also
    // after the command itself exited (record -- make): strobe reaps them.
    watch_.emplace(child_->pid(), opt_.inherit);
  } else if (opt_.system_wide) {
    targets_.system_wide = true;
  } else {
    targets_.pids = opt_.pids;
  }
  return engine_->open(targets_);
}

void Session::fillMeta() {
  model::Meta& meta = profile_.meta();
  meta.frequency = opt_.period != 0 ? 0 : opt_.frequency;
  meta.sample_period = opt_.period;
  meta.event = opt_.event;
  meta.call_graph = opt_.callchain ? "fp" : "none";
  meta.engine = engineName(engine_kind_);
  if (opt_.stack_copy_bytes != 0) {
    meta.call_graph = opt_.unwind_auto ? "auto" : "dwarf";
    meta.stack_copy_bytes = opt_.stack_copy_bytes;
  }
  meta.kernel_time = opt_.kernel || targets_.kernel_time ? 1 : 0;
  meta.kernel_refused = kernel_refused_;
  meta.hostname = hostName();
  meta.kernel = kernelRelease();
  meta.strobe_version = STROBE_VERSION;
  meta.start_realtime_ns = realtimeNs();
  meta.start_monotonic_ns = monotonicNs();
  if (launch_) {
    meta.command = opt_.command;
    meta.pid = child_->pid();
    meta.target = "command";
  } else if (opt_.system_wide) {
    meta.target = "system";
  } else {
    meta.command = readCmdline(opt_.pids.front());
    if (meta.command.empty()) meta.command = {readComm(opt_.pids.front(), opt_.pids.front())};
    meta.pid = opt_.pids.front();
    meta.target = "pid";
    for (size_t i = 0; i < opt_.pids.size(); ++i) {
      meta.target += i == 0 ? ' ' : ',';
      meta.target += std::to_string(opt_.pids[i]);
    }
  }
}

void Session::setUpConverter() {
  converter_ = std::make_unique<Converter>(profile_, profile_.meta().start_monotonic_ns);
  converter_->setKernelFrames(opt_.kernel);
  // Kept files share the descriptor limit with the events: an eighth of it.
  kept_ = std::make_unique<KeptFiles>(std::min<uint64_t>(kMaxKeptFiles, raiseFdLimit() / 8));
  converter_->setKeptFiles(kept_.get());
  if (opt_.stack_copy_bytes != 0) {
    converter_->enableUnwinding(opt_.unwind_auto ? unwind::UnwindMode::kAuto
                                                 : unwind::UnwindMode::kDwarf);
  } else if (opt_.callchain) {
    converter_->enableFramePointerCheck();
  }
  if (opt_.off_cpu) converter_->enableOffCpu(opt_.off_cpu_min_ns);
  engine_->configure(*converter_);
  queue_ = engine_->makeQueue();
}

void Session::synthesize(pid_t pid) {
  auto maps = readMaps(pid);
  if (!maps) return;
  for (const ProcMapping& m : *maps) {
    if (!m.exec) continue;
    std::string build_id;
    if (!m.path.empty() && m.path.front() == '/') {
      auto [it, inserted] = build_ids_.try_emplace(m.path);
      if (inserted) it->second = readBuildId(m.path);
      build_id = it->second;
    }
    // Anonymous executable memory ("" in maps) is named as MMAP2 records name it.
    converter_->addMapping(pid, m.start, m.end, m.pgoff, m.path.empty() ? "//anon" : m.path,
                           build_id);
  }
  for (pid_t tid : listThreads(pid)) converter_->nameThread(pid, tid, readComm(pid, tid));
}

void Session::tick(uint64_t pass_start) {
  // Ticks keep their cadence; one that ran past the next skips it. None
  // after one asked to stop.
  const uint64_t start_ns = profile_.meta().start_monotonic_ns;
  TickInfo info{pass_start - start_ns, &converter_->stats(), kept_.get(), {}, {}};
  if (opt_.off_cpu) info.open_off_cpu = converter_->openOffCpu(pass_start - kReorderSlackNs);
  info.compact = [this](uint64_t before_ns) {
    model::Compaction c = model::compactProfile(profile_, before_ns, converter_->liveStacks());
    converter_->afterCompaction(c);
    converter_->forgetExited(profile_.meta().start_monotonic_ns + before_ns);
    return c;
  };
  const bool go_on = opt_.on_tick(profile_, info);
  next_tick_ += opt_.tick_ns;
  if (const uint64_t now = monotonicNs(); next_tick_ <= now) next_tick_ = now + opt_.tick_ns;
  if (!go_on) {
    next_tick_ = UINT64_MAX;
    deadline_ = std::min(deadline_, pass_start);
  }
}

bool Session::pass(uint64_t pass_start) {
  auto apply = [&](const perf::Record& rec, uint8_t source) {
    engine_->apply(rec, source, *converter_);
  };
  auto apply_raw = [&](const uint8_t* bytes, size_t size, uint8_t source) {
    engine_->applyRaw(bytes, size, source, *converter_);
  };
  engine_->drain(*queue_);
  queue_->flushBefore(pass_start - kReorderSlackNs, apply, apply_raw);
  engine_->afterPass(pass_start, warnings_);
  jit_.poll(profile_, *converter_, pass_start);
  spans_.poll();
  if (opt_.live_roles) {
    if (opt_.system_wide && pass_start >= next_discovery_) {
      spans_.discover(sampledPidsSince(last_discovery_), pass_start);
      last_discovery_ = pass_start - profile_.meta().start_monotonic_ns;
      next_discovery_ = pass_start + kDiscoverNs;
    }
    spans_.applyRoles(profile_);
  }
  if (pass_start >= next_tick_) tick(pass_start);

  if (launch_) return watch_->poll(pass_start, deadline_, SignalScope::stopRequested());
  if (SignalScope::stopRequested() || pass_start >= deadline_) return true;
  if (!opt_.system_wide && pass_start - last_target_check_ >= kTargetCheckNs) {
    last_target_check_ = pass_start;
    readTargetCpu(/*first=*/false);
    if (!targetsAlive()) return true;
  }
  return false;
}

void Session::waitForWork(uint64_t pass_start) {
  int timeout = kPollTimeoutMs;
  const bool terminating = watch_ && watch_->terminating();
  if (deadline_ != UINT64_MAX && !terminating) timeout = msUntil(deadline_, monotonicNs());
  if (next_tick_ != UINT64_MAX) timeout = std::min(timeout, msUntil(next_tick_, monotonicNs()));
  (void)pass_start;
  fds_.clear();
  fds_.push_back(pollfd{wake_read_.get(), POLLIN, 0});
  fds_.push_back(pollfd{spans_.fd(), POLLIN, 0});  // a new process's span channel
  engine_->pollFds(fds_);
  if (::poll(fds_.data(), fds_.size(), timeout) > 0) {
    char buf[64];
    while (::read(wake_read_.get(), buf, sizeof buf) > 0) {
    }
    engine_->polled(fds_.data() + 2, fds_.size() - 2);
  }
}

void Session::finish(RecordOutcome& outcome, uint64_t end) {
  model::Meta& meta = profile_.meta();
  meta.duration_ns = end - meta.start_monotonic_ns;
  engine_->stop();
  engine_->drain(*queue_);
  queue_->flushAll(
      [&](const perf::Record& rec, uint8_t source) { engine_->apply(rec, source, *converter_); },
      [&](const uint8_t* bytes, size_t size, uint8_t source) {
        engine_->applyRaw(bytes, size, source, *converter_);
      });
  spans_.finish(profile_, meta.start_monotonic_ns, warnings_);
  converter_->finish(end);
  jit_.finish(profile_, *converter_, monotonicNs(), warnings_);
  for (std::string& note : converter_->pythonFrames().takeNotes()) {
    warnings_.push_back(std::move(note));
  }
  if (engine_kind_ != EngineKind::kBpf) {
    if (std::string note = converter_->pythonFrames().withoutBpfNote(); !note.empty()) {
      warnings_.push_back(std::move(note));
    }
  }

  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
  if (watch_) {
    outcome.exit_status = watch_->exitStatus();
    outcome.command_ns = watch_->commandNs();
    outcome.descendants_left = watch_->descendantsLeft();
    user_ns = watch_->userNs();
    system_ns = watch_->systemNs();
    if (watch_->killed()) {
      warnings_.push_back("the command did not exit within " +
                          std::to_string(kKillGraceNs / 1'000'000'000) +
                          " s of the SIGTERM that ended -d: strobe killed it (SIGKILL)");
    }
  }
  if (outcome.descendants_left > 0) {
    const size_t n = outcome.descendants_left;
    warnings_.push_back((n == 1 ? std::string("1 process") : std::to_string(n) + " processes") +
                        " the command started " + (n == 1 ? "was" : "were") +
                        " still running when the recording stopped: not sampled after that");
  }
  outcome.stats = converter_->stats();
  engine_->finish(outcome.stats, outcome, warnings_);
  outcome.engine = engine_kind_;
  outcome.malformed_records = queue_->malformed();
  outcome.warnings = warnings_;
  converter_->setKeptFiles(nullptr);
  outcome.kept_files = std::move(kept_);
  meta.lost_samples = outcome.stats.lost;
  meta.throttle_events = outcome.stats.throttled;
  meta.throttled_ns = outcome.stats.throttled_ns;
  meta.throttle_weighted_ns = outcome.stats.throttle_weighted_ns;
  meta.unsampled_threads = outcome.stats.unsampled_threads;
  meta.unsampled_count = outcome.stats.unsampled_count;
  if (!launch_ && !opt_.system_wide) {
    // Attached: what the targets' /proc/PID/stat counted while recording.
    readTargetCpu(/*first=*/false);
    for (const auto& [pid, cpu] : target_cpu_) {
      const auto& [start, last] = cpu;
      user_ns += last.user_ns >= start.user_ns ? last.user_ns - start.user_ns : 0;
      system_ns += last.system_ns >= start.system_ns ? last.system_ns - start.system_ns : 0;
    }
  }
  meta.target_cpu_ns = opt_.system_wide ? 0 : user_ns + system_ns;
  meta.target_system_ns = opt_.system_wide ? 0 : system_ns;
  meta.exit_status = outcome.exit_status;
  if (opt_.off_cpu) {
    const OffCpuStats& o = outcome.stats.off_cpu;
    meta.off_cpu = 1;
    meta.off_cpu_min_ns = opt_.off_cpu_min_ns;
    meta.off_cpu_short_count = o.short_count;
    meta.off_cpu_short_ns = o.short_ns;
    meta.switch_records_lost = outcome.stats.switch_lost;
    meta.switch_unpaired = o.unpaired;
  }
}

Result<RecordOutcome> Session::run() {
  if (auto st = checkOptions(); !st) return st.takeError();
  launch_ = !opt_.command.empty();
  if (auto st = checkTargets(); !st) return st.takeError();
  auto engine = makeEngine(opt_, engine_kind_, warnings_);
  if (!engine) return engine.takeError();
  engine_ = std::move(*engine);
  SubreaperScope subreaper(launch_ && opt_.inherit);
  if (auto st = open(); !st) return st.takeError();

  int wake_fds[2];
  if (::pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK) != 0) return systemError("cannot create a pipe");
  wake_read_ = Fd(wake_fds[0]);
  wake_write_ = Fd(wake_fds[1]);

  fillMeta();
  setUpConverter();
  if (auto st = engine_->start(); !st) return st.takeError();
  // Sampling runs (a launched command from its exec): what was mapped before
  // is read from /proc now; later changes arrive as records.
  if (opt_.system_wide) {
    for (pid_t pid : listProcesses()) synthesize(pid);
  } else if (!launch_) {
    for (pid_t pid : opt_.pids) synthesize(pid);
    readTargetCpu(/*first=*/true);
    if (opt_.spans || opt_.live_roles) {
      for (pid_t pid : opt_.pids) spans_.attach(pid, warnings_);
    }
  }

  SignalScope signals(launch_ ? child_->pid() : -1, wake_write_.get());
  if (launch_) {
    watch_->released(monotonicNs());
    if (auto st = child_->release(); !st) return st.takeError();
    child_->abandon();
  }
  const uint64_t start_ns = profile_.meta().start_monotonic_ns;
  if (opt_.duration_ns != 0) deadline_ = start_ns + opt_.duration_ns;
  if (opt_.on_tick && opt_.tick_ns != 0) next_tick_ = start_ns + opt_.tick_ns;
  last_target_check_ = monotonicNs();
  if (opt_.live_roles) spans_.liveRoles();
  for (;;) {
    const uint64_t pass_start = monotonicNs();
    if (pass(pass_start)) break;
    waitForWork(pass_start);
  }
  RecordOutcome outcome;
  finish(outcome, monotonicNs());
  return outcome;
}

}  // namespace

const char* attachModeName(AttachMode m) {
  switch (m) {
    case AttachMode::kInherit:
      return "inherit";
    case AttachMode::kPerThread:
      return "per-thread";
    case AttachMode::kCpuFiltered:
      return "cpu-filtered";
    case AttachMode::kAuto:
      break;
  }
  return "auto";
}

Result<RecordOutcome> record(const RecordOptions& opt, model::Profile& profile) {
  Session session(opt, profile);
  return session.run();
}

}  // namespace strobe::record
