#include "record/perf_engine.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.hpp"
#include "perf/event.hpp"
#include "perf/ring_buffer.hpp"
#include "record/proc.hpp"
#include "unwind/regs.hpp"

namespace strobe::record {
namespace {

// Per-thread rings are small: there may be a thousand of them (larger with
// a stack copy per sample: see perThreadRingPages).
constexpr size_t kPerThreadRingPages = 8;
// Descriptors kept free for everything else strobe opens (files, SQLite).
constexpr int kReservedFds = 64;
// An off-CPU ring is this many times as large as the sampling ring: a
// program that switches 100,000 times a second writes ~25 MB/s of switch
// records (docs/BENCHMARKS.md, "Off-CPU time"), while strobe itself may
// wait for a CPU on a busy machine.
constexpr size_t kOffCpuRingFactor = 4;
// How often per-thread attach looks for new threads.
constexpr uint64_t kRescanNs = 100'000'000;

struct Ring {
  Fd fd;
  perf::RingBuffer buffer;
  RingStats stats;
  bool hup = false;
  Stream source = Stream::kMain;
};

class PerfEngine final : public CaptureEngine {
 public:
  explicit PerfEngine(const RecordOptions& opt) : opt_(opt), cpus_(perf::onlineCpus()) {
    spec_.name = opt.event;
    spec_.frequency = opt.frequency;
    spec_.period = opt.period;
    spec_.callchain = opt.callchain || opt.stack_copy_bytes != 0;
    spec_.kernel = opt.kernel;
    if (opt.stack_copy_bytes != 0) {
      spec_.regs_user = unwind::archRegs().perf_mask;
      spec_.stack_user = opt.stack_copy_bytes;
    }
  }

  Status open(const EngineTargets& t) override {
    targets_ = t;
    spec_.kernel_time = t.kernel_time;
    if (t.command > 0) return openLaunch(t.command);
    if (t.system_wide) {
      raiseFdLimit();
      return openSystem();
    }
    return openAttach();
  }
  std::unique_ptr<EventQueue> makeQueue() const override {
    return std::make_unique<EventQueue>(attr_.sample_type, attr_.sample_regs_user);
  }
  void configure(Converter& c) override {
    converter_ = &c;
    if (!filter_pids_.empty()) c.setPidFilter(filter_pids_);
  }
  Status start() override {
    // Launched: enabled by the command's exec; attached: enabled as opened.
    if (targets_.system_wide) {
      for (auto& r : rings_) (void)perf::enableEvent(r->fd.get());
    }
    last_scan_ = monotonicNs();
    return {};
  }
  void drain(EventQueue& q) override;
  void apply(const perf::Record& r, uint8_t source, Converter& c) override {
    c.apply(r, static_cast<Stream>(source));
  }
  void afterPass(uint64_t now_ns, std::vector<std::string>& warnings) override;
  void pollFds(std::vector<pollfd>& fds) const override {
    for (const auto& r : rings_) fds.push_back(pollfd{r->hup ? -1 : r->fd.get(), POLLIN, 0});
  }
  void polled(const pollfd* fds, size_t n) override {
    // An event whose task is gone reports POLLHUP forever: stop polling it
    // (a per-CPU ring is still drained every pass; a per-thread one is
    // drained once more and closed).
    for (size_t i = 0; i < n && i < rings_.size(); ++i) {
      if ((fds[i].revents & (POLLHUP | POLLERR)) != 0) rings_[i]->hup = true;
    }
  }
  void stop() override {
    for (auto& r : rings_) (void)perf::disableEvent(r->fd.get());
    for (Fd& fd : redirected_) (void)perf::disableEvent(fd.get());
  }
  void finish(ConverterStats& stats, RecordOutcome& out,
              std::vector<std::string>& warnings) override {
    countUnsampled(stats, warnings);
    out.rings = closed_stats_;
    for (auto& r : rings_) out.rings.push_back(r->stats);
    out.attach_mode = mode_;
    out.events_opened = events_opened_;
  }

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
  Status openLaunch(pid_t child);
  Status openSystem();
  Result<AttachMode> chooseAttachMode(size_t threads);
  Status openAttach();
  // Opens events on the threads of the targets that have none yet. Threads
  // that exit meanwhile are skipped quietly.
  Status coverThreads();
  Status coverThread(pid_t tid);
  void countUnsampled(ConverterStats& stats, std::vector<std::string>& warnings);

  const RecordOptions& opt_;
  EngineTargets targets_;
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
  Converter* converter_ = nullptr;
  size_t events_opened_ = 0;
  bool rescan_ = true;
  uint64_t last_scan_ = 0;
  bool off_ring_warned_ = false;
  std::vector<std::string> open_warnings_;  // met while opening, reported after the first pass
};

Status PerfEngine::addRing(Fd fd, size_t pages, int cpu, pid_t tid) {
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

Status PerfEngine::addOffCpuRing(Fd fd, size_t pages, int cpu, pid_t tid) {
  for (size_t want = pages * kOffCpuRingFactor;; want /= 2) {
    auto ring = perf::RingBuffer::map(fd.get(), want);
    if (!ring && want > pages) continue;
    if (!ring) return ring.takeError();
    if (want < pages * kOffCpuRingFactor && !off_ring_warned_) {
      off_ring_warned_ = true;
      open_warnings_.push_back("the off-CPU rings have " + std::to_string(want) + " pages, not " +
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

Result<Fd> PerfEngine::openOffCpu(pid_t pid, int cpu) {
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

Status PerfEngine::openLaunch(pid_t child) {
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

Status PerfEngine::openSystem() {
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

Result<AttachMode> PerfEngine::chooseAttachMode(size_t threads) {
  const uint64_t limit = raiseFdLimit();
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

Status PerfEngine::coverThread(pid_t tid) {
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

Status PerfEngine::coverThreads() {
  // Threads started while events were being opened: list again until no
  // new thread appears (inherit covers later ones; per-thread mode rescans).
  for (int pass = 0; pass < 5; ++pass) {
    bool added = false;
    for (pid_t pid : targets_.pids) {
      for (pid_t tid : listThreads(pid)) {
        if (covered_.count(tid) != 0) continue;
        covered_.insert(tid);
        added = true;
        if (auto st = coverThread(tid); !st) {
          // The thread (or the whole process) exited meanwhile: quietly skip.
          if (st.error().kind == ErrorKind::kNotFound) continue;
          return st;
        }
        if (converter_ != nullptr) converter_->nameThread(pid, tid, readComm(pid, tid));
      }
    }
    if (!added || mode_ != AttachMode::kInherit) break;
  }
  return {};
}

Status PerfEngine::openAttach() {
  size_t threads = 0;
  for (pid_t pid : targets_.pids) threads += listThreads(pid).size();
  auto mode = chooseAttachMode(threads);
  if (!mode) return mode.takeError();
  mode_ = *mode;
  const uint32_t wakeup = static_cast<uint32_t>(ringBytes(opt_.mmap_pages) / 4);
  if (mode_ == AttachMode::kCpuFiltered) {
    for (pid_t pid : targets_.pids) filter_pids_.insert(pid);
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

void PerfEngine::drain(EventQueue& q) {
  for (auto& r : rings_) {
    r->buffer.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
      if (hdr->type == PERF_RECORD_SAMPLE) {
        ++r->stats.samples;
      } else if (hdr->type == PERF_RECORD_LOST && size >= sizeof *hdr + 16) {
        uint64_t lost;
        std::memcpy(&lost, bytes + sizeof *hdr + 8, sizeof lost);
        r->stats.lost += lost;
      }
      q.push(hdr, bytes, size, static_cast<uint8_t>(r->source));
    });
    r->stats.corrupt = r->buffer.corruptCount();
  }
}

void PerfEngine::afterPass(uint64_t now_ns, std::vector<std::string>& warnings) {
  for (std::string& w : open_warnings_) warnings.push_back(std::move(w));
  open_warnings_.clear();
  // A per-thread event whose thread exited: its ring was just drained; close it.
  auto gone = [&](const std::unique_ptr<Ring>& r) {
    if (!r->hup || r->stats.tid < 0) return false;
    closed_stats_.push_back(r->stats);
    return true;
  };
  rings_.erase(std::remove_if(rings_.begin(), rings_.end(), gone), rings_.end());
  if (mode_ != AttachMode::kPerThread || !rescan_ || now_ns - last_scan_ < kRescanNs) return;
  last_scan_ = now_ns;
  // Recording has begun: a thread that cannot be covered is worth a
  // warning, not the loss of the recording; rescans stop there.
  if (auto st = coverThreads(); !st) {
    rescan_ = false;
    const Error& e = st.error();
    warnings.push_back("new threads are no longer followed: " + e.describe() +
                       (e.hint.empty() ? "" : " (" + e.hint + ")"));
  }
}

void PerfEngine::countUnsampled(ConverterStats& stats, std::vector<std::string>& warnings) {
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
      warnings.push_back("the CPU left unsampled is not known: " + c.error().describe());
      return;
    }
    counted += *c;
  }
  // Lost samples are weighed at the mean period of those that came.
  uint64_t covered = stats.sampled_weight + stats.throttle_weighted_ns;
  if (stats.samples != 0) covered += stats.lost * (stats.sampled_weight / stats.samples);
  stats.unsampled_count = counted > covered ? counted - covered : 0;
}

Status checkPerf(const RecordOptions& opt) {
  if (auto tc = perf::eventTypeConfig(opt.event); !tc) return tc.takeError();
  return {};
}

std::unique_ptr<CaptureEngine> makePerf(const RecordOptions& opt) {
  return std::make_unique<PerfEngine>(opt);
}

}  // namespace

const EngineInfo& perfEngineInfo() {
  static const EngineInfo info{EngineKind::kPerf, "perf", checkPerf, makePerf};
  return info;
}

}  // namespace strobe::record
