#include "record/session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.hpp"
#include "model/measure.hpp"
#include "perf/event.hpp"
#include "perf/ring_buffer.hpp"
#include "record/event_queue.hpp"
#include "record/jit_follow.hpp"
#include "record/launch.hpp"
#include "record/proc.hpp"
#include "record/span_receiver.hpp"
#include "unwind/regs.hpp"

namespace strobe::record {
namespace {

// A record read in one drain pass may be older than one still unread in
// another ring by at most the time a pass takes; hold records this long.
constexpr uint64_t kReorderSlackNs = 20'000'000;
constexpr int kPollTimeoutMs = 100;
// Per-thread rings are small: there may be a thousand of them (larger with
// a stack copy per sample: see perThreadRingPages).
constexpr size_t kPerThreadRingPages = 8;
// Descriptors kept free for everything else strobe opens (files, SQLite).
constexpr int kReservedFds = 64;
// Mapped files held open for symbolization (see kept_files.hpp).
constexpr size_t kMaxKeptFiles = 256;
// -d: how long a launched command has between SIGTERM and SIGKILL
// (docs/USAGE.md).
constexpr uint64_t kKillGraceNs = 2'000'000'000;
// An off-CPU ring is this many times as large as the sampling ring: a
// program that switches 100,000 times a second writes ~25 MB/s of switch
// records (docs/BENCHMARKS.md, "Off-CPU time"), while strobe itself may
// wait for a CPU on a busy machine.
constexpr size_t kOffCpuRingFactor = 4;
// -g auto: user stack bytes copied at each switch-out (see openOffCpu): the
// libc frames of a blocking call fit in a few hundred bytes.
constexpr uint32_t kOffCpuStackCopy = 1024;
// Live roles, system-wide: how often the processes sampled lately are
// looked at for span channels (each at most every kDiscoverEveryNs).
constexpr uint64_t kDiscoverNs = 1'000'000'000;

std::atomic<pid_t> g_forward_to{-1};
std::atomic<bool> g_stop{false};
int g_wake_write = -1;

void wake() {
  char b = 0;
  if (g_wake_write >= 0) {
    ssize_t n = ::write(g_wake_write, &b, 1);
    (void)n;
  }
}

void onStopSignal(int sig, siginfo_t* info, void*) {
  int saved = errno;
  pid_t child = g_forward_to.load();
  if (child > 0) {
    // Ctrl-C at the terminal (SI_KERNEL) already reached the command's
    // process group; forward only what was sent to strobe alone.
    if (info != nullptr && info->si_code != SI_KERNEL) ::kill(child, sig);
  } else {
    g_stop = true;
    wake();
  }
  errno = saved;
}

void onChild(int) {
  int saved = errno;
  wake();
  errno = saved;
}

// Installs the handlers for the session's lifetime and restores the old ones.
class SignalScope {
 public:
  SignalScope(pid_t child, int wake_fd) {
    g_forward_to = child;
    g_stop = false;
    g_wake_write = wake_fd;
    struct sigaction sa = {};
    sa.sa_sigaction = onStopSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
    struct sigaction sc = {};
    sc.sa_handler = onChild;
    sc.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sc.sa_mask);
    ::sigaction(SIGCHLD, &sc, &old_chld_);
  }
  ~SignalScope() {
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
    ::sigaction(SIGCHLD, &old_chld_, nullptr);
    g_forward_to = -1;
    g_wake_write = -1;
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  static constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  std::array<struct sigaction, 4> old_{};
  struct sigaction old_chld_ = {};
};

struct Ring {
  Fd fd;
  perf::RingBuffer buffer;
  RingStats stats;
  bool hup = false;
  Stream source = Stream::kMain;
};

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

int shellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

uint64_t timevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
}

// Makes strobe the reaper of the command's orphans (their parent exited
// first), so that it can wait for them and count their CPU; restores the
// previous setting on destruction.
class SubreaperScope {
 public:
  explicit SubreaperScope(bool on) {
    int was = 0;
    if (!on || ::prctl(PR_GET_CHILD_SUBREAPER, &was) != 0) return;
    if (was == 0 && ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) set_ = true;
  }
  ~SubreaperScope() {
    if (set_) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;

 private:
  bool set_ = false;
};

// Raises the soft descriptor limit to the hard one; returns the soft limit.
rlim_t raiseFdLimit() {
  struct rlimit rl = {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return rl.rlim_cur;
}

class Session {
 public:
  Session(const RecordOptions& opt, model::Profile& profile)
      : opt_(opt), profile_(profile), cpus_(perf::onlineCpus()) {
    spec_.name = opt.event;
    spec_.frequency = opt.frequency;
    spec_.period = opt.period;
    spec_.callchain = opt.callchain || opt.stack_copy_bytes != 0;
    spec_.kernel = opt.kernel;
    // Time in the kernel, on its user stack, wherever the kernel permits it
    // (checked in run()).
    spec_.kernel_time = !opt.kernel;
    if (opt.stack_copy_bytes != 0) {
      spec_.regs_user = unwind::archRegs().perf_mask;
      spec_.stack_user = opt.stack_copy_bytes;
    }
  }

  Result<RecordOutcome> run();

 private:
  size_t ringBytes(size_t pages) const {
    return pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  }
  // A per-thread ring: kPerThreadRingPages, or room for four samples with
  // their stack copies (-g dwarf / auto), at most --mmap-pages.
  size_t perThreadRingPages() const {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t need = (4 * (size_t{opt_.stack_copy_bytes} + 512) + page - 1) / page;
    return std::min(opt_.mmap_pages, std::max(kPerThreadRingPages, std::bit_ceil(need)));
  }
  Status addRing(Fd fd, size_t pages, int cpu, pid_t tid);
  // An off-CPU ring of kOffCpuRingFactor x pages, or as large as the
  // locked-memory limit lets it be (down to `pages`, with a warning).
  Status addOffCpuRing(Fd fd, size_t pages, int cpu, pid_t tid);
  // Opens the off-CPU event on (pid, cpu) when --off-cpu asks for it.
  Result<Fd> openOffCpu(pid_t pid, int cpu);
  Status checkOffCpu() const;
  Status openLaunch(pid_t child);
  Status openSystem();
  Result<AttachMode> chooseAttachMode(size_t threads);
  Status openAttach();
  // Opens events on the threads of the targets that have none yet. Threads
  // that exit meanwhile are skipped quietly.
  Status coverThreads();
  Status coverThread(pid_t tid);
  void synthesize(pid_t pid);
  void drainAll();
  void closeHungPerThreadRings();
  bool targetsAlive() const;
  void fillMeta();
  void countUnsampled(ConverterStats& stats);

  const RecordOptions& opt_;
  model::Profile& profile_;
  std::vector<int> cpus_;
  perf::EventSpec spec_;
  perf_event_attr attr_{};
  perf_event_attr off_attr_{};  // --off-cpu: made from attr_ once it is set
  std::vector<std::unique_ptr<Ring>> rings_;
  std::unordered_map<int, int> ring_of_cpu_;      // cpu -> fd of its ring (inherit attach)
  std::unordered_map<int, int> off_ring_of_cpu_;  // the same for the off-CPU event
  std::vector<Fd> redirected_;                    // events writing into another event's ring
  // The main events whose counts add up to the targets' whole count
  // (launch, inherit attach): what no sample covers is unsampled.
  std::vector<int> counting_fds_;
  std::unordered_set<pid_t> covered_;  // threads with events (attach)
  AttachMode mode_ = AttachMode::kAuto;
  std::unordered_set<int32_t> filter_pids_;
  std::vector<RingStats> closed_stats_;
  std::unique_ptr<EventQueue> queue_;
  std::unique_ptr<Converter> converter_;
  std::unique_ptr<KeptFiles> kept_;
  JitFollow jit_;  // JIT code's names, read as the runtimes write them
  std::unordered_map<std::string, std::string> build_ids_;  // by path
  size_t events_opened_ = 0;
  bool rescan_ = true;
  SpanReceiver spans_;
  bool off_ring_warned_ = false;
  std::vector<std::string> warnings_;
  std::string kernel_refused_;  // why kernel time is not sampled
  // Attach: each target's CPU when recording began and when last read.
  std::unordered_map<pid_t, std::pair<ProcessCpu, ProcessCpu>> target_cpu_;
  void readTargetCpu(bool first);
  // The processes of the samples taken since `since_ns` (since the start).
  std::vector<int32_t> sampledPidsSince(uint64_t since_ns) const;
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

Status Session::addRing(Fd fd, size_t pages, int cpu, pid_t tid) {
  auto ring = perf::RingBuffer::map(fd.get(), pages);
  if (!ring) return ring.takeError();
  auto r = std::make_unique<Ring>();
  r->fd = std::move(fd);
  r->buffer = std::move(*ring);
  r->stats.cpu = cpu;
  r->stats.tid = tid;
  rings_.push_back(std::move(r));
  return {};
}

Status Session::addOffCpuRing(Fd fd, size_t pages, int cpu, pid_t tid) {
  for (size_t want = pages * kOffCpuRingFactor;; want /= 2) {
    auto ring = perf::RingBuffer::map(fd.get(), want);
    if (!ring && want > pages) continue;
    if (!ring) return ring.takeError();
    if (want < pages * kOffCpuRingFactor && !off_ring_warned_) {
      off_ring_warned_ = true;
      warnings_.push_back("the off-CPU rings have " + std::to_string(want) + " pages, not " +
                          std::to_string(pages * kOffCpuRingFactor) +
                          " (the locked-memory limit): switch records may be lost (raise "
                          "ulimit -l or kernel.perf_event_mlock_kb)");
    }
    auto r = std::make_unique<Ring>();
    r->fd = std::move(fd);
    r->buffer = std::move(*ring);
    r->stats.cpu = cpu;
    r->stats.tid = tid;
    r->stats.off_cpu = true;
    r->source = Stream::kOffCpu;
    rings_.push_back(std::move(r));
    return {};
  }
}

Status Session::checkOffCpu() const {
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

Result<Fd> Session::openOffCpu(pid_t pid, int cpu) {
  off_attr_ = perf::makeOffCpuAttr(attr_);
  // -g auto: a thread leaves its CPU in a system call, whose libc wrapper
  // (no frame pointer) CFI unwinds from the first bytes of the stack; the
  // frame-pointer chain of its callers is spliced on (unwind/unwinder.hpp).
  // A small copy keeps a switch's record small (docs/BENCHMARKS.md).
  if (opt_.unwind_auto && off_attr_.sample_stack_user > kOffCpuStackCopy) {
    off_attr_.sample_stack_user = kOffCpuStackCopy;
  }
  auto fd = perf::openEvent(off_attr_, pid, cpu);
  if (fd) {
    ++events_opened_;
    return fd;
  }
  // The main event (user space only) was allowed; this one counts in the
  // kernel, which perf_event_paranoid >= 2 forbids.
  if (fd.error().kind == ErrorKind::kPermission) {
    const int paranoid = perf::readParanoid();
    if (paranoid >= 2 || paranoid == perf::kParanoidUnknown) {
      return perf::offCpuPermissionError(paranoid);
    }
  }
  return fd.takeError();
}

Status Session::openLaunch(pid_t child) {
  attr_ = perf::makeAttr(spec_, opt_.inherit, /*enable_on_exec=*/true,
                         static_cast<uint32_t>(ringBytes(opt_.mmap_pages) / 4));
  for (int cpu : cpus_) {
    auto fd = perf::openEvent(attr_, child, cpu);
    if (!fd) return fd.takeError();
    ++events_opened_;
    counting_fds_.push_back(fd->get());
    if (auto st = addRing(std::move(*fd), opt_.mmap_pages, cpu, -1); !st) return st;
    if (!opt_.off_cpu) continue;
    auto off = openOffCpu(child, cpu);
    if (!off) return off.takeError();
    if (auto st = addOffCpuRing(std::move(*off), opt_.mmap_pages, cpu, -1); !st) return st;
  }
  return {};
}

Status Session::openSystem() {
  attr_ = perf::makeAttr(spec_, /*inherit=*/false, /*enable_on_exec=*/false,
                         static_cast<uint32_t>(ringBytes(opt_.mmap_pages) / 4));
  for (int cpu : cpus_) {
    auto fd = perf::openEvent(attr_, -1, cpu);
    if (!fd) return fd.takeError();
    ++events_opened_;
    if (auto st = addRing(std::move(*fd), opt_.mmap_pages, cpu, -1); !st) return st;
    if (!opt_.off_cpu) continue;
    auto off = openOffCpu(-1, cpu);
    if (!off) return off.takeError();
    if (auto st = addOffCpuRing(std::move(*off), opt_.mmap_pages, cpu, -1); !st) return st;
  }
  return {};
}

Result<AttachMode> Session::chooseAttachMode(size_t threads) {
  const rlim_t limit = raiseFdLimit();
  const int open_now = countOpenFds();
  const long budget = static_cast<long>(limit) - (open_now > 0 ? open_now : 0) - kReservedFds;
  const size_t inherit_fds = threads * cpus_.size() * (opt_.off_cpu ? 2 : 1);
  if (opt_.attach_mode != AttachMode::kAuto) return opt_.attach_mode;
  if (inherit_fds <= kInheritMaxFds && static_cast<long>(inherit_fds) <= budget) {
    return AttachMode::kInherit;
  }
  // Per-thread rings also need room for threads started later.
  const size_t per_thread = (opt_.off_cpu ? 2 : 1) * (threads + threads / 4);
  if (static_cast<long>(per_thread) <= budget) return AttachMode::kPerThread;
  if (static_cast<long>(cpus_.size() * (opt_.off_cpu ? 2 : 1)) <= budget) {
    return AttachMode::kCpuFiltered;
  }
  return makeError("attaching needs at least " + std::to_string(cpus_.size()) +
                       " file descriptors, but the limit is " + std::to_string(limit),
                   "raise it: ulimit -n 65536 (the hard limit may need root)");
}

Status Session::coverThread(pid_t tid) {
  const bool inherit = mode_ == AttachMode::kInherit;
  const size_t thread_pages = std::min(opt_.mmap_pages, kPerThreadRingPages);
  if (!inherit) {
    auto fd = perf::openEvent(attr_, tid, -1);
    if (!fd) return fd.takeError();
    ++events_opened_;
    if (auto st = perf::enableEvent(fd->get()); !st) return st;
    if (auto st = addRing(std::move(*fd), perThreadRingPages(), -1, tid); !st) return st;
    if (!opt_.off_cpu) return {};
    auto off = openOffCpu(tid, -1);
    if (!off) return off.takeError();
    if (auto st = perf::enableEvent(off->get()); !st) return st;
    // The switch records carry a small stack copy (kOffCpuStackCopy).
    return addOffCpuRing(std::move(*off), std::max<size_t>(1, thread_pages / 2), -1, tid);
  }
  // One ring per CPU and event; the events of later threads write into it.
  auto cover = [&](Fd fd, int cpu, std::unordered_map<int, int>& ring_of, Stream source) -> Status {
    auto it = ring_of.find(cpu);
    if (it == ring_of.end()) {
      int raw = fd.get();
      Status st = source == Stream::kOffCpu ? addOffCpuRing(std::move(fd), opt_.mmap_pages, cpu, -1)
                                            : addRing(std::move(fd), opt_.mmap_pages, cpu, -1);
      if (!st) return st;
      ring_of[cpu] = raw;
      return perf::enableEvent(raw);
    }
    if (::ioctl(fd.get(), PERF_EVENT_IOC_SET_OUTPUT, it->second) != 0) {
      return systemError("cannot redirect a perf event into its CPU's ring");
    }
    if (auto st = perf::enableEvent(fd.get()); !st) return st;
    redirected_.push_back(std::move(fd));
    return {};
  };
  for (int cpu : cpus_) {
    auto fd = perf::openEvent(attr_, tid, cpu);
    if (!fd) return fd.takeError();
    ++events_opened_;
    counting_fds_.push_back(fd->get());
    if (auto st = cover(std::move(*fd), cpu, ring_of_cpu_, Stream::kMain); !st) return st;
    if (!opt_.off_cpu) continue;
    auto off = openOffCpu(tid, cpu);
    if (!off) return off.takeError();
    if (auto st = cover(std::move(*off), cpu, off_ring_of_cpu_, Stream::kOffCpu); !st) return st;
  }
  return {};
}

Status Session::coverThreads() {
  // Threads started while events were being opened: list again until no
  // new thread appears (inherit covers later ones; per-thread mode rescans).
  for (int pass = 0; pass < 5; ++pass) {
    bool added = false;
    for (pid_t pid : opt_.pids) {
      for (pid_t tid : listThreads(pid)) {
        if (covered_.count(tid) != 0) continue;
        covered_.insert(tid);
        added = true;
        if (auto st = coverThread(tid); !st) {
          // The thread (or the whole process) exited meanwhile: quietly skip.
          if (st.error().kind == ErrorKind::kNotFound) continue;
          return st;
        }
        if (converter_) converter_->nameThread(pid, tid, readComm(pid, tid));
      }
    }
    if (!added || mode_ != AttachMode::kInherit) break;
  }
  return {};
}

Status Session::openAttach() {
  size_t threads = 0;
  for (pid_t pid : opt_.pids) {
    if (!processExists(pid)) {
      return makeError("no process with pid " + std::to_string(pid),
                       "check the pid; the process may have exited", ErrorKind::kNotFound);
    }
    threads += listThreads(pid).size();
  }
  auto mode = chooseAttachMode(threads);
  if (!mode) return mode.takeError();
  mode_ = *mode;
  const uint32_t wakeup = static_cast<uint32_t>(ringBytes(opt_.mmap_pages) / 4);
  if (mode_ == AttachMode::kCpuFiltered) {
    for (pid_t pid : opt_.pids) filter_pids_.insert(pid);
    if (auto st = openSystem(); !st) {
      if (st.error().kind != ErrorKind::kPermission) return st;
      Error e = st.takeError();
      e.message = "too many threads to attach with one event each (file descriptor limit), and " +
                  e.message;
      return e;
    }
    for (auto& r : rings_) {
      if (auto st = perf::enableEvent(r->fd.get()); !st) return st;
    }
    return {};
  }
  attr_ = perf::makeAttr(spec_, mode_ == AttachMode::kInherit, /*enable_on_exec=*/false,
                         mode_ == AttachMode::kInherit
                             ? wakeup
                             : static_cast<uint32_t>(ringBytes(perThreadRingPages()) / 4));
  // Check every target first, so an unknown or forbidden pid is reported as such.
  return coverThreads();
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

void Session::drainAll() {
  for (auto& r : rings_) {
    r->buffer.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
      if (hdr->type == PERF_RECORD_SAMPLE) {
        ++r->stats.samples;
      } else if (hdr->type == PERF_RECORD_LOST && size >= sizeof *hdr + 16) {
        uint64_t lost;
        std::memcpy(&lost, bytes + sizeof *hdr + 8, sizeof lost);
        r->stats.lost += lost;
      }
      queue_->push(hdr, bytes, size, static_cast<uint8_t>(r->source));
    });
    r->stats.corrupt = r->buffer.corruptCount();
  }
}

void Session::closeHungPerThreadRings() {
  // A per-thread event whose thread exited: its ring was just drained; close it.
  auto gone = [&](const std::unique_ptr<Ring>& r) {
    if (!r->hup || r->stats.tid < 0) return false;
    closed_stats_.push_back(r->stats);
    return true;
  };
  rings_.erase(std::remove_if(rings_.begin(), rings_.end(), gone), rings_.end());
}

void Session::countUnsampled(ConverterStats& stats) {
  // Where the events do not count every target thread (-a, per-thread and
  // CPU-filtered attach), nothing is said of unsampled CPU or threads.
  stats.unsampled_count = 0;
  if (counting_fds_.empty()) {
    stats.unsampled_threads = 0;
    return;
  }
  uint64_t counted = 0;
  for (int fd : counting_fds_) {
    auto c = perf::readCount(fd);
    if (!c) {
      stats.unsampled_threads = 0;
      warnings_.push_back("the CPU left unsampled is not known: " + c.error().describe());
      return;
    }
    counted += *c;
  }
  // Lost samples are weighed at the mean period of those that came.
  uint64_t covered = stats.sampled_weight + stats.throttle_weighted_ns;
  if (stats.samples != 0) covered += stats.lost * (stats.sampled_weight / stats.samples);
  stats.unsampled_count = counted > covered ? counted - covered : 0;
}

bool Session::targetsAlive() const {
  return std::any_of(opt_.pids.begin(), opt_.pids.end(), [](pid_t p) { return processAlive(p); });
}

Result<RecordOutcome> Session::run() {
  if (auto tc = perf::eventTypeConfig(opt_.event); !tc) return tc.takeError();
  if (spec_.kernel_time) {
    // Without the privilege, user time only, and every report says so.
    if (auto st = perf::probeKernelSampling(); !st && st.error().kind == ErrorKind::kPermission) {
      spec_.kernel_time = false;
      kernel_refused_ = st.error().message;
    }
  }
  if (auto st = checkOffCpu(); !st) return st.takeError();
  const bool launch = !opt_.command.empty();
  // With inherit, the command's children are followed until they end, also
  // after the command itself exited (record -- make): strobe reaps them.
  const bool follow = launch && opt_.inherit;
  SubreaperScope subreaper(follow);
  std::optional<HeldChild> child;
  if (launch) {
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
    child.emplace(std::move(*held));
    if (auto st = openLaunch(child->pid()); !st) return st.takeError();
  } else if (opt_.system_wide) {
    raiseFdLimit();
    if (auto st = openSystem(); !st) return st.takeError();
  } else {
    if (opt_.pids.empty()) {
      return makeError("nothing to record", "give a command, -p PID, -P NAME or -a",
                       ErrorKind::kUsage);
    }
    if (auto st = openAttach(); !st) return st.takeError();
  }

  int wake_fds[2];
  if (::pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK) != 0) return systemError("cannot create a pipe");
  Fd wake_read(wake_fds[0]);
  Fd wake_write(wake_fds[1]);

  model::Meta& meta = profile_.meta();
  meta.frequency = opt_.period != 0 ? 0 : opt_.frequency;
  meta.sample_period = opt_.period;
  meta.event = opt_.event;
  meta.call_graph = opt_.callchain ? "fp" : "none";
  if (opt_.stack_copy_bytes != 0) {
    meta.call_graph = opt_.unwind_auto ? "auto" : "dwarf";
    meta.stack_copy_bytes = opt_.stack_copy_bytes;
  }
  meta.kernel_time = spec_.kernel || spec_.kernel_time ? 1 : 0;
  meta.kernel_refused = kernel_refused_;
  meta.hostname = hostName();
  meta.kernel = kernelRelease();
  meta.strobe_version = STROBE_VERSION;
  meta.start_realtime_ns = realtimeNs();
  meta.start_monotonic_ns = monotonicNs();
  if (launch) {
    meta.command = opt_.command;
    meta.pid = child->pid();
    meta.target = "command";
  } else if (opt_.system_wide) {
    meta.target = "system";
  } else {
    meta.command = readCmdline(opt_.pids.front());
    if (meta.command.empty()) meta.command = {readComm(opt_.pids.front(), opt_.pids.front())};
    meta.pid = opt_.pids.front();
    meta.target = "pid";
    for (size_t i = 0; i < opt_.pids.size(); ++i) {
      meta.target += (i == 0 ? " " : ",") + std::to_string(opt_.pids[i]);
    }
  }

  converter_ = std::make_unique<Converter>(profile_, meta.start_monotonic_ns);
  converter_->setKernelFrames(opt_.kernel);
  // Kept files share the descriptor limit with the events: an eighth of it.
  kept_ = std::make_unique<KeptFiles>(std::min<rlim_t>(kMaxKeptFiles, raiseFdLimit() / 8));
  converter_->setKeptFiles(kept_.get());
  if (opt_.stack_copy_bytes != 0) {
    converter_->enableUnwinding(opt_.unwind_auto ? unwind::UnwindMode::kAuto
                                                 : unwind::UnwindMode::kDwarf);
  } else if (opt_.callchain) {
    converter_->enableFramePointerCheck();
  }
  if (!filter_pids_.empty()) converter_->setPidFilter(filter_pids_);
  if (opt_.off_cpu) converter_->enableOffCpu(opt_.off_cpu_min_ns);
  queue_ = std::make_unique<EventQueue>(attr_.sample_type, attr_.sample_regs_user);

  // Events exist (and, attaching, are enabled): what was mapped before them
  // is read from /proc now; later changes arrive as records.
  if (opt_.system_wide) {
    for (auto& r : rings_) (void)perf::enableEvent(r->fd.get());
    for (pid_t pid : listProcesses()) synthesize(pid);
  } else if (!launch) {
    for (pid_t pid : opt_.pids) synthesize(pid);
    readTargetCpu(/*first=*/true);
    if (opt_.spans || opt_.live_roles) {
      for (pid_t pid : opt_.pids) spans_.attach(pid, warnings_);
    }
  }

  auto apply = [&](const perf::Record& rec, uint8_t source) {
    converter_->apply(rec, static_cast<Stream>(source));
  };
  const pid_t pid = launch ? child->pid() : -1;
  SignalScope signals(pid, wake_write.get());
  uint64_t released_ns = 0;
  if (launch) {
    released_ns = monotonicNs();
    if (auto st = child->release(); !st) return st.takeError();
    child->abandon();
  }

  // A live view's tick may end the session early: it moves the deadline.
  uint64_t deadline =
      opt_.duration_ns != 0 ? meta.start_monotonic_ns + opt_.duration_ns : UINT64_MAX;
  const bool ticking = opt_.on_tick && opt_.tick_ns != 0;
  uint64_t next_tick = ticking ? meta.start_monotonic_ns + opt_.tick_ns : UINT64_MAX;
  uint64_t terminated_ns = 0;  // launch: when the command got SIGTERM at the deadline
  bool killed = false;         // ... and SIGKILL after the grace period
  bool command_done = false;   // launch: the command exited (its children may not have)
  uint64_t user_ns = 0;        // launch: CPU of the command and of every reaped descendant
  uint64_t system_ns = 0;
  uint64_t last_scan = monotonicNs();
  RecordOutcome outcome;
  int status = 0;
  std::vector<pollfd> fds;
  if (opt_.live_roles) spans_.liveRoles();
  uint64_t next_discovery = 0;  // live roles, -a: when to look for new channels next
  uint64_t last_discovery = 0;  // ... and the sample time the last look covered
  for (;;) {
    uint64_t pass_start = monotonicNs();
    drainAll();
    queue_->flushBefore(pass_start - kReorderSlackNs, apply);
    closeHungPerThreadRings();
    jit_.poll(profile_, *converter_, pass_start);
    spans_.poll();
    if (opt_.live_roles) {
      if (opt_.system_wide && pass_start >= next_discovery) {
        spans_.discover(sampledPidsSince(last_discovery), pass_start);
        last_discovery = pass_start - meta.start_monotonic_ns;
        next_discovery = pass_start + kDiscoverNs;
      }
      spans_.applyRoles(profile_);
    }
    if (pass_start >= next_tick) {
      // Ticks keep their cadence; one that ran past the next skips it. None
      // after one asked to stop.
      TickInfo info{pass_start - meta.start_monotonic_ns, &converter_->stats(), kept_.get(), {}};
      if (opt_.off_cpu) info.open_off_cpu = converter_->openOffCpu(pass_start - kReorderSlackNs);
      info.compact = [this](uint64_t before_ns) {
        model::Compaction c = model::compactProfile(profile_, before_ns, converter_->liveStacks());
        converter_->afterCompaction(c);
        converter_->forgetExited(profile_.meta().start_monotonic_ns + before_ns);
        return c;
      };
      const bool go_on = opt_.on_tick(profile_, info);
      next_tick += opt_.tick_ns;
      if (const uint64_t now = monotonicNs(); next_tick <= now) next_tick = now + opt_.tick_ns;
      if (!go_on) {
        next_tick = UINT64_MAX;
        deadline = std::min(deadline, pass_start);
      }
    }

    if (launch) {
      // The command, and (as their reaper) its orphaned descendants.
      bool children_left = true;
      for (;;) {
        int st = 0;
        struct rusage ru = {};
        const pid_t w = ::wait4(follow ? -1 : pid, &st, WNOHANG, &ru);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          children_left = w == 0;
          break;
        }
        user_ns += timevalNs(ru.ru_utime);
        system_ns += timevalNs(ru.ru_stime);
        if (w == pid) {
          status = st;
          command_done = true;
          outcome.command_ns = monotonicNs() - released_ns;
          // From now on a signal to strobe ends the recording (the
          // descendants are left alone), as when attached.
          g_forward_to = -1;
        }
      }
      if (command_done) {
        if (!follow || !children_left) break;
        // Descendants still running: follow them until they end, unless
        // the recording is stopped (a signal, -d, a live view's end).
        if (g_stop.load() || pass_start >= deadline) {
          outcome.descendants_left = countLiveDescendants(::getpid());
          break;
        }
      } else if (pass_start >= deadline) {
        if (terminated_ns == 0) {
          ::kill(pid, SIGTERM);
          terminated_ns = pass_start;
        } else if (!killed && pass_start - terminated_ns >= kKillGraceNs) {
          // -d is a hard limit: a command that ignores SIGTERM is killed.
          ::kill(pid, SIGKILL);
          killed = true;
        }
      }
    } else {
      if (g_stop.load() || pass_start >= deadline) break;
      if (pass_start - last_scan >= 100'000'000ULL) {
        last_scan = pass_start;
        if (!opt_.system_wide) readTargetCpu(/*first=*/false);
        if (!opt_.system_wide && !targetsAlive()) break;
        if (mode_ == AttachMode::kPerThread && rescan_) {
          // Recording has begun: a thread that cannot be covered is worth a
          // warning, not the loss of the recording; rescans stop there.
          if (auto st = coverThreads(); !st) {
            rescan_ = false;
            const Error& e = st.error();
            warnings_.push_back("new threads are no longer followed: " + e.describe() +
                                (e.hint.empty() ? "" : " (" + e.hint + ")"));
          }
        }
      }
    }

    int timeout = kPollTimeoutMs;
    if (deadline != UINT64_MAX && terminated_ns == 0) {
      uint64_t now = monotonicNs();
      uint64_t left_ms = deadline > now ? (deadline - now + 999'999) / 1'000'000 : 0;
      timeout = static_cast<int>(std::min<uint64_t>(left_ms, kPollTimeoutMs));
    }
    if (ticking) {
      uint64_t now = monotonicNs();
      uint64_t left_ms = next_tick > now ? (next_tick - now + 999'999) / 1'000'000 : 0;
      timeout = std::min(timeout, static_cast<int>(std::min<uint64_t>(left_ms, kPollTimeoutMs)));
    }
    fds.clear();
    fds.push_back(pollfd{wake_read.get(), POLLIN, 0});
    for (auto& r : rings_) fds.push_back(pollfd{r->hup ? -1 : r->fd.get(), POLLIN, 0});
    fds.push_back(pollfd{spans_.fd(), POLLIN, 0});  // a new process's span channel
    if (::poll(fds.data(), fds.size(), timeout) > 0) {
      char buf[64];
      while (::read(wake_read.get(), buf, sizeof buf) > 0) {
      }
      // An event whose task is gone reports POLLHUP forever: stop polling it
      // (a per-CPU ring is still drained every pass; a per-thread one is
      // drained once more and closed).
      for (size_t i = 1; i + 1 < fds.size(); ++i) {
        if ((fds[i].revents & (POLLHUP | POLLERR)) != 0) rings_[i - 1]->hup = true;
      }
    }
  }
  const uint64_t end = monotonicNs();
  meta.duration_ns = end - meta.start_monotonic_ns;
  for (auto& r : rings_) (void)perf::disableEvent(r->fd.get());
  for (Fd& fd : redirected_) (void)perf::disableEvent(fd.get());
  drainAll();
  queue_->flushAll(apply);
  spans_.finish(profile_, meta.start_monotonic_ns, warnings_);
  converter_->finish(end);
  jit_.finish(profile_, *converter_, monotonicNs(), warnings_);
  for (std::string& note : converter_->pythonFrames().takeNotes()) {
    warnings_.push_back(std::move(note));
  }
  if (std::string note = converter_->pythonFrames().withoutBpfNote(); !note.empty()) {
    warnings_.push_back(std::move(note));
  }

  outcome.exit_status = launch ? shellStatus(status) : 0;
  if (killed) {
    warnings_.push_back("the command did not exit within " +
                        std::to_string(kKillGraceNs / 1'000'000'000) +
                        " s of the SIGTERM that ended -d: strobe killed it (SIGKILL)");
  }
  if (outcome.descendants_left > 0) {
    const size_t n = outcome.descendants_left;
    warnings_.push_back((n == 1 ? std::string("1 process") : std::to_string(n) + " processes") +
                        " the command started " + (n == 1 ? "was" : "were") +
                        " still running when the recording stopped: not sampled after that");
  }
  outcome.stats = converter_->stats();
  countUnsampled(outcome.stats);
  outcome.malformed_records = queue_->malformed();
  outcome.rings = closed_stats_;
  for (auto& r : rings_) outcome.rings.push_back(r->stats);
  outcome.attach_mode = mode_;
  outcome.events_opened = events_opened_;
  outcome.warnings = warnings_;
  converter_->setKeptFiles(nullptr);
  outcome.kept_files = std::move(kept_);
  meta.lost_samples = outcome.stats.lost;
  meta.throttle_events = outcome.stats.throttled;
  meta.throttled_ns = outcome.stats.throttled_ns;
  meta.throttle_weighted_ns = outcome.stats.throttle_weighted_ns;
  meta.unsampled_threads = outcome.stats.unsampled_threads;
  meta.unsampled_count = outcome.stats.unsampled_count;
  if (!launch && !opt_.system_wide) {
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
