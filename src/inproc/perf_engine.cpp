// PerfEngine: perf_event self-profiling. One cpu-clock event per thread
// (pid = tid, cpu = -1, no inherit: the kernel cannot mmap inherited
// per-thread events), sampling IP, TID, TIME, PERIOD and the user callchain
// (the kernel's frame-pointer walk) into a small ring per thread. The
// session's drain thread empties the rings, so no signal handler runs in the
// program. Samples are weighted by PERIOD (ns of CPU). Kernel LOST records
// count as dropped samples.
#include <linux/perf_event.h>

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

// Data pages per thread ring (32 KiB): the drain runs every 10-20 ms.
constexpr size_t kRingPages = 8;

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

class PerfEngine final : public Engine {
 public:
  explicit PerfEngine(const Options& o) : opt_(o) {
    perf::EventSpec spec;
    spec.name = "cpu-clock";
    spec.frequency = o.frequency;
    attr_ = perf::makeAttr(spec, /*inherit=*/false, /*enable_on_exec=*/false);
    // Addresses are resolved with /proc/self/maps after stop: no side band.
    attr_.mmap = attr_.mmap2 = attr_.comm = attr_.comm_exec = attr_.task = 0;
    attr_.build_id = 0;
    attr_.watermark = 0;
    attr_.wakeup_events = 0;
    attr_.sample_max_stack = static_cast<uint16_t>(std::min(o.max_depth, kernelMaxStack()));
    frames_.resize(o.max_depth);
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
    if (!ring.ok()) return ring.takeError();
    if (Status s = perf::enableEvent(fd->get()); !s.ok()) return s;
    threads_.emplace(tid, PerfThread{std::move(*fd), std::move(*ring)});
    return {};
  }

  [[nodiscard]] bool hasThread(int32_t tid) const override { return threads_.contains(tid); }

  [[nodiscard]] std::vector<int32_t> threads() const override {
    std::vector<int32_t> v;
    for (const auto& [tid, t] : threads_) v.push_back(tid);
    return v;
  }

  void removeThread(int32_t tid, Collector& c) override {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return;
    drainOne(it->second, c);
    threads_.erase(it);
  }

  void drain(Collector& c) override {
    for (auto& [tid, t] : threads_) drainOne(t, c);
  }

  void stop(Collector& c) override {
    for (auto& [tid, t] : threads_) (void)perf::disableEvent(t.fd.get());
    drain(c);
    threads_.clear();
  }

  [[nodiscard]] uint64_t dropped() const override { return lost_; }

  void abandonAfterFork() override {
    // The events belong to the parent's threads; closing our copies of the
    // descriptors (and unmapping) leaves them running in the parent.
    threads_.clear();
  }

 private:
  void drainOne(PerfThread& t, Collector& c) {
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
      bool user = false;
      for (uint64_t i = 0; i < s->callchain_len && n < frames_.size(); ++i) {
        uint64_t v = s->callchain[i];
        if (perf::isContextMarker(v)) {
          user = v == perf::kContextUser;
          continue;
        }
        if (!user) continue;
        if (v == 0 && n > 0) break;  // the zeroed frame at a thread's entry
        frames_[n++] = v;
      }
      if (n == 0) frames_[n++] = s->ip;
      c.add(static_cast<int32_t>(s->tid), s->time, s->period, frames_.data(), n);
    });
  }

  Options opt_;
  perf_event_attr attr_{};
  std::map<int32_t, PerfThread> threads_;
  std::vector<uint64_t> frames_;
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
