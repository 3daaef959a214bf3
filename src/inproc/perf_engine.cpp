// PerfEngine: perf_event self-profiling. One cpu-clock event per thread
// (pid = tid, cpu = -1, no inherit: the kernel cannot mmap inherited
// per-thread events), sampling IP, TID, TIME, PERIOD and the user callchain
// (the kernel's frame-pointer walk) into a ring per thread. The session's
// drain thread empties the rings, so no signal handler runs in the program.
// Samples are weighted by PERIOD (ns of CPU). Kernel LOST records count as
// dropped samples.
// Wake-ups: every event is in one epoll set (waitFd()) and wakes it when its
// ring is half full (watermark mode), so the drain thread sleeps until a
// ring needs it instead of polling; a thread's event also hangs up (EPOLLHUP)
// when the thread exits, and drain() retires it then.
#include <linux/perf_event.h>
#include <sys/epoll.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <variant>

#include "base/fd.hpp"
#include "inproc/engine.hpp"
#include "perf/event.hpp"
#include "perf/records.hpp"
#include "perf/ring_buffer.hpp"

namespace strobe::inproc {
namespace {

// Data pages per thread ring (32 KiB: a half ring holds ~90 ms of 999 Hz
// samples of 20 frames). Unprivileged, rings come out of a small budget
// (kernel.perf_event_mlock_kb per CPU for the user, then RLIMIT_MEMLOCK):
// larger rings would leave more threads unsampled in big programs. When
// the budget refuses, smaller rings (down to 4 KiB) still sample the
// thread: the watermark wakes the drain thread at half of whatever ring the
// thread got.
constexpr size_t kRingPages = 8;
// Without epoll (never expected): drain on a timer, every 10 ms (a 4 KiB
// ring still holds ~20 ms of 999 Hz samples of 20 frames).
constexpr uint32_t kPollingMs = 10;
// With epoll: the session still wakes this often to rescan threads.
constexpr uint32_t kIdleMs = 100;

uint32_t kernelMaxStack() {
  std::ifstream in("/proc/sys/kernel/perf_event_max_stack");
  uint32_t v = 0;
  in >> v;
  return v == 0 ? 127 : v;
}

struct PerfThread {
  Fd fd;
  perf::RingBuffer ring;
};

class PerfEngine final : public EngineWithThreads<PerfThread> {
 public:
  explicit PerfEngine(const Options& o) : opt_(o) {
    perf::EventSpec spec;
    spec.name = o.event;
    spec.frequency = o.frequency;
    spec.kernel = o.kernel;
    attr_ = perf::makeAttr(spec, /*inherit=*/false, /*enable_on_exec=*/false);
    // Addresses are resolved with /proc/self/maps after stop: no side band.
    attr_.mmap = attr_.mmap2 = attr_.comm = attr_.comm_exec = attr_.task = 0;
    attr_.build_id = 0;
    // Wake pollers at half the ring (wakeup_watermark 0: the kernel's half).
    attr_.watermark = 1;
    attr_.wakeup_watermark = 0;
    attr_.wakeup_events = 0;
    attr_.sample_max_stack = static_cast<uint16_t>(std::min(o.max_depth, kernelMaxStack()));
    frames_.resize(o.max_depth);
    epoll_ = Fd(::epoll_create1(EPOLL_CLOEXEC));
  }
  ~PerfEngine() override {
    Collector sink;
    stop(sink);
  }

  [[nodiscard]] const char* name() const override { return "perf"; }

  Status addThread(int32_t tid, uint64_t /*stack_hi*/) override {
    if (threads_.contains(tid)) return {};
    auto fd = perf::openEvent(attr_, tid, -1);
    if (!fd.ok()) return fd.takeError();
    auto ring = perf::RingBuffer::map(fd->get(), kRingPages);
    for (size_t pages = kRingPages / 2;
         !ring.ok() && ring.error().kind == ErrorKind::kPermission && pages >= 1; pages /= 2) {
      ring = perf::RingBuffer::map(fd->get(), pages);
    }
    if (!ring.ok()) return ring.takeError();
    if (epoll_.valid()) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = static_cast<uint32_t>(tid);
      if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd->get(), &ev) != 0) {
        return systemError("cannot watch the perf event of thread " + std::to_string(tid));
      }
    }
    if (Status s = perf::enableEvent(fd->get()); !s.ok()) return s;
    threads_.emplace(tid, PerfThread{std::move(*fd), std::move(*ring)});
    return {};
  }

  [[nodiscard]] int waitFd() const override { return epoll_.valid() ? epoll_.get() : -1; }

  [[nodiscard]] uint32_t drainIntervalMs() const override {
    return epoll_.valid() ? kIdleMs : kPollingMs;
  }

  void drain(Collector& c) override {
    // Which events hung up (their thread exited); this also takes the
    // pending watermark wake-ups, which the loop below serves anyway.
    hung_up_.clear();
    if (epoll_.valid()) {
      epoll_event evs[64];
      int n = ::epoll_wait(epoll_.get(), evs, 64, 0);
      for (int i = 0; i < n; ++i) {
        if ((evs[i].events & (EPOLLHUP | EPOLLERR)) != 0) {
          hung_up_.push_back(static_cast<int32_t>(evs[i].data.u64));
        }
      }
    }
    for (auto& [tid, t] : threads_) drainOne(t, c);
    for (int32_t tid : hung_up_) removeThread(tid, c);
  }

  void stop(Collector& c) override {
    for (auto& [tid, t] : threads_) (void)perf::disableEvent(t.fd.get());
    for (auto& [tid, t] : threads_) drainOne(t, c);
    threads_.clear();
  }

  [[nodiscard]] uint64_t dropped() const override { return lost_; }

  void abandonAfterFork() override {
    // The events belong to the parent's threads; closing our copies of the
    // descriptors (and unmapping) leaves them running in the parent. The
    // epoll set is shared with the parent: close our descriptor of it, but
    // never change it.
    threads_.clear();
    epoll_ = Fd();
  }

 private:
  void retire(PerfThread& t, Collector& c) override {
    if (epoll_.valid()) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, t.fd.get(), nullptr);
    drainOne(t, c);
  }

  void drainOne(PerfThread& t, Collector& c) {
    if (t.ring.pendingBytes() == 0) return;  // touch nothing else for an idle thread
    t.ring.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
      if (hdr->type != PERF_RECORD_SAMPLE && hdr->type != PERF_RECORD_LOST) return;
      auto rec = perf::decodeRecord(hdr, bytes, size, attr_.sample_type);
      if (!rec.ok()) return;
      if (const auto* lost = std::get_if<perf::LostRecord>(&*rec)) {
        lost_ += lost->lost;
        return;
      }
      const auto* s = std::get_if<perf::SampleRecord>(&*rec);
      if (s == nullptr) return;
      uint32_t n = 0;
      uint32_t kernel_frames = 0;  // leaf-most, with opt_.kernel
      bool user = false;
      bool kernel = false;
      for (uint64_t i = 0; i < s->callchain_len && n < frames_.size(); ++i) {
        uint64_t v = s->callchain[i];
        if (perf::isContextMarker(v)) {
          user = v == perf::kContextUser;
          kernel = v == perf::kContextKernel;
          continue;
        }
        if (kernel && opt_.kernel && n == kernel_frames) {
          frames_[n++] = v;
          ++kernel_frames;
          continue;
        }
        if (!user) continue;
        if (v == 0 && n > kernel_frames) break;  // the zeroed frame at a thread's entry
        frames_[n++] = v;
      }
      if (n == 0) frames_[n++] = s->ip;
      c.add(static_cast<int32_t>(s->tid), s->time, s->period, frames_.data(), n);
    });
  }

  Options opt_;
  perf_event_attr attr_{};
  Fd epoll_;
  std::vector<uint64_t> frames_;
  std::vector<int32_t> hung_up_;
  uint64_t lost_ = 0;
};

}  // namespace

Result<std::unique_ptr<Engine>> makePerfEngine(const Options& o) {
  if (o.mode == Mode::kWall) {
    return makeError("the perf engine samples CPU time only, not wall-clock time",
                     "use engine=timer (or auto) for wall mode", ErrorKind::kUsage);
  }
  return std::unique_ptr<Engine>(std::make_unique<PerfEngine>(o));
}

}  // namespace strobe::inproc
