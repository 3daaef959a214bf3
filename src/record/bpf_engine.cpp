#include "record/bpf_engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <variant>

#include "bpf/program.hpp"
#include "bpf/records.hpp"
#include "perf/event.hpp"
#include "perf/ring_buffer.hpp"
#include "unwind/regs.hpp"

namespace strobe::record {
namespace {

// The queue's sources.
constexpr uint8_t kSideband = 0;  // a perf ring: MMAP2, COMM, FORK, EXIT, THROTTLE, LOST
constexpr uint8_t kProgram = 1;   // the BPF ring buffer
// The BPF ring: the perf engine's ring memory (--mmap-pages per CPU),
// within these bounds.
constexpr size_t kMinRingBytes = 1 << 20;
constexpr size_t kMaxRingBytes = 1 << 30;
// Launched: the sampler's ring, which holds only THROTTLE and LOST records.
constexpr size_t kThrottleRingPages = 4;
// perf's ABI value for 64-bit user registers (PERF_SAMPLE_REGS_ABI_64).
constexpr uint64_t kRegsAbi64 = 2;

struct CpuRing {
  Fd fd;
  perf::RingBuffer buffer;
  int cpu = -1;
};

class BpfEngine final : public CaptureEngine {
 public:
  explicit BpfEngine(const RecordOptions& opt) : opt_(opt), cpus_(perf::onlineCpus()) {}

  Status open(const EngineTargets& t) override;
  std::unique_ptr<EventQueue> makeQueue() const override {
    return std::make_unique<EventQueue>(attr_.sample_type);
  }
  void configure(Converter& c) override { converter_ = &c; }
  Status start() override { return {}; }  // sampling since open(); a command from its exec
  void drain(EventQueue& q) override;
  void apply(const perf::Record& r, uint8_t source, Converter& c) override;
  void applyRaw(const uint8_t* bytes, size_t size, uint8_t source, Converter& c) override;
  void afterPass(uint64_t now_ns, std::vector<std::string>& warnings) override;
  void pollFds(std::vector<pollfd>& fds) const override {
    fds.push_back(pollfd{program_->pollFd(), POLLIN, 0});
    for (const auto& r : rings_) fds.push_back(pollfd{r->fd.get(), POLLIN, 0});
  }
  void polled(const pollfd*, size_t) override {}  // per-CPU events never hang up
  void stop() override {
    for (auto& r : rings_) (void)perf::disableEvent(r->fd.get());
    program_->detach();
  }
  void finish(ConverterStats& stats, RecordOutcome& out,
              std::vector<std::string>& warnings) override;

 private:
  bool ours(uint32_t pid) const { return all_ || pids_.count(pid) != 0; }
  // Hands the program's lost-record counts to the converter as LOST records.
  void noteLost(Converter& c);
  // A SampleRecord for the converter from a program record; its callchain
  // lives in callchain_, and what else the program read in extras_, until
  // the next call.
  perf::SampleRecord sampleOf(const bpf::Record& r);
  // Enters the CPython processes the converter found since the last call
  // into the program (their Python frames are read from then on), and
  // takes out those it no longer follows.
  void syncPython();

  const RecordOptions& opt_;
  std::vector<int> cpus_;
  bool all_ = false;                   // -a: every process
  std::unordered_set<uint32_t> pids_;  // the targets and their descendants
  std::unique_ptr<bpf::Program> program_;
  perf_event_attr attr_{};
  std::vector<std::unique_ptr<CpuRing>> rings_;
  Converter* converter_ = nullptr;
  EventQueue* queue_ = nullptr;  // during drain()
  std::vector<uint64_t> callchain_;
  std::vector<BuildIdFrame> build_id_frames_;
  std::vector<cpython::RuntimeFrame> python_frames_;
  std::unordered_set<pid_t> python_pids_;  // entered into the program
  SampleExtras extras_;
  bpf::Counters reported_;  // lost counts already handed to the converter
  uint64_t samples_ = 0;    // sample records read
  uint64_t switches_ = 0;   // switch records read
  uint64_t sideband_lost_ = 0;
  size_t events_opened_ = 0;
  uint64_t malformed_ = 0;
  // Samples whose user stack the program could not read: the kernel's
  // walk refused (-g fp), or not one byte of the stack copy was readable.
  uint64_t walk_failed_ = 0;
  uint64_t copy_failed_ = 0;
};

Status BpfEngine::open(const EngineTargets& t) {
  all_ = t.system_wide;
  bpf::ProgramConfig config;
  config.filter = !t.system_wide;
  config.kernel_stack = opt_.kernel;
  config.user_stack = opt_.callchain || opt_.stack_copy_bytes != 0;
  config.stack_bytes = opt_.stack_copy_bytes;
  // -g fp: frames named by build-id where the kernel can tell the file. It
  // costs the target about 5 us per sample (docs/BENCHMARKS.md, "Capture
  // engines"), so it is on where it names what strobe may never learn
  // otherwise: -a, whose processes come and go before their mappings are
  // read. STROBE_BPF_BUILD_ID=1 or 0 asks for it or not.
  const char* build_id = std::getenv("STROBE_BPF_BUILD_ID");
  const std::string_view asked = build_id != nullptr ? build_id : "";
  config.build_id = opt_.stack_copy_bytes == 0 && opt_.callchain &&
                    (asked == "1" || (asked != "0" && t.system_wide));
  if (opt_.off_cpu) {
    config.off_cpu = true;
    config.switch_stack_bytes = opt_.stack_copy_bytes;
    if (opt_.unwind_auto)
      config.switch_stack_bytes = std::min(kOffCpuStackCopy, opt_.stack_copy_bytes);
  }
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  config.ring_bytes = std::clamp(std::bit_ceil(opt_.mmap_pages * page * cpus_.size()),
                                 kMinRingBytes, kMaxRingBytes);
  auto program = bpf::Program::load(config);
  if (!program) return program.takeError();
  program_ = std::move(*program);
  if (t.command > 0) {
    pids_.insert(static_cast<uint32_t>(t.command));
    if (auto st = program_->addTarget(t.command, /*held=*/true); !st) return st;
  }
  for (pid_t pid : t.pids) {
    pids_.insert(static_cast<uint32_t>(pid));
    if (auto st = program_->addTarget(pid, /*held=*/false); !st) return st;
  }
  if (auto st = program_->attachTracepoints(); !st) return st;

  // One event per CPU on every task: the program samples. Attached and -a,
  // its ring also carries the side-band records of every process (kept for
  // the targets in apply()); a launched command's come from a dummy event
  // per CPU that it inherits from its exec on, so that other processes'
  // records never reach strobe. THROTTLE records come from the sampler.
  perf::EventSpec spec;
  spec.name = opt_.event;
  spec.frequency = opt_.frequency;
  spec.period = opt_.period;
  spec.callchain = false;
  spec.kernel = opt_.kernel;
  spec.kernel_time = t.kernel_time;
  const bool launch = t.command > 0;
  const auto wakeup = static_cast<uint32_t>(opt_.mmap_pages * page / 4);
  attr_ = perf::makeAttr(spec, /*inherit=*/false, /*enable_on_exec=*/false, wakeup);
  perf_event_attr sampler = attr_;
  perf_event_attr sideband =
      perf::makeAttr(spec, /*inherit=*/true, /*enable_on_exec=*/true, wakeup);
  if (launch) {
    sampler.mmap = sampler.mmap2 = sampler.comm = sampler.comm_exec = sampler.task = 0;
    sampler.build_id = 0;
    sideband.type = PERF_TYPE_SOFTWARE;
    sideband.config = PERF_COUNT_SW_DUMMY;
  }
  auto addRing = [&](Result<Fd> fd, size_t pages, int cpu) -> Result<int> {
    if (!fd) return fd.takeError();
    auto ring = perf::RingBuffer::map(fd->get(), pages);
    if (!ring) return ring.takeError();
    auto r = std::make_unique<CpuRing>();
    r->fd = std::move(*fd);
    r->buffer = std::move(*ring);
    r->cpu = cpu;
    rings_.push_back(std::move(r));
    return rings_.back()->fd.get();
  };
  for (int cpu : cpus_) {
    // Launched, the sampler's ring holds only THROTTLE and LOST records.
    auto fd = addRing(
        perf::openEvent(sampler, -1, cpu),
        launch ? std::min<size_t>(opt_.mmap_pages, kThrottleRingPages) : opt_.mmap_pages, cpu);
    if (!fd) return fd.takeError();
    if (auto st = program_->attachSampler(*fd); !st) return st;
    ++events_opened_;
    if (!launch) continue;
    auto side = addRing(perf::openEvent(sideband, t.command, cpu), opt_.mmap_pages, cpu);
    if (!side) return side.takeError();
    ++events_opened_;
  }
  return {};
}

void BpfEngine::drain(EventQueue& q) {
  for (auto& r : rings_) {
    r->buffer.drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
      q.push(hdr, bytes, size, kSideband);
    });
  }
  queue_ = &q;
  program_->drain(
      [](const uint8_t* bytes, size_t size, void* arg) {
        auto* self = static_cast<BpfEngine*>(arg);
        self->queue_->pushRaw(bpf::recordTime(bytes, size), bytes, size, kProgram);
      },
      this);
  queue_ = nullptr;
}

void BpfEngine::apply(const perf::Record& rec, uint8_t, Converter& c) {
  if (const auto* m = std::get_if<perf::Mmap2Record>(&rec)) {
    if (ours(m->pid)) {
      c.onMmap(*m);
      // An interpreter just mapped: its frames are read from the next sample.
      syncPython();
    }
  } else if (const auto* cm = std::get_if<perf::CommRecord>(&rec)) {
    if (ours(cm->pid)) c.onComm(*cm);
  } else if (const auto* t = std::get_if<perf::TaskRecord>(&rec)) {
    // A target's child process is a target (as the program decided at its fork).
    if (t->is_fork && t->pid != t->ppid && ours(t->ppid)) pids_.insert(t->pid);
    if (ours(t->pid)) c.onTask(*t);
  } else if (const auto* th = std::get_if<perf::ThrottleRecord>(&rec)) {
    if (ours(th->pid)) c.onThrottle(*th);
  } else if (const auto* l = std::get_if<perf::LostRecord>(&rec)) {
    sideband_lost_ += l->lost;
  }
}

perf::SampleRecord BpfEngine::sampleOf(const bpf::Record& r) {
  perf::SampleRecord s;
  s.pid = r.pid;
  s.tid = r.tid;
  s.time = r.time;
  s.cpu = r.cpu;
  s.period = r.period;
  s.ip = r.ip;
  callchain_.clear();
  if (!r.kernel_stack.empty()) {
    callchain_.push_back(perf::kContextKernel);
    callchain_.insert(callchain_.end(), r.kernel_stack.begin(), r.kernel_stack.end());
  }
  if (!r.user_stack.empty()) {
    callchain_.push_back(perf::kContextUser);
    callchain_.insert(callchain_.end(), r.user_stack.begin(), r.user_stack.end());
  }
  s.callchain = callchain_.data();
  s.callchain_len = callchain_.size();
  build_id_frames_.clear();
  for (const strobe_build_id_frame& f : r.build_id_stack) {
    if (f.status == STROBE_BUILD_ID_VALID) {
      build_id_frames_.push_back(BuildIdFrame{f.build_id, f.offset_or_ip});
    } else {
      build_id_frames_.push_back(BuildIdFrame{nullptr, f.offset_or_ip});
    }
  }
  extras_.user_frames = build_id_frames_;
  python_frames_.clear();
  for (const strobe_runtime_frame& f : r.runtime_frames) {
    if (f.runtime != STROBE_RUNTIME_CPYTHON) continue;
    python_frames_.push_back(cpython::RuntimeFrame{
        f.code, f.offset,
        static_cast<uint16_t>((f.flags & STROBE_RT_ENTRY) != 0 ? cpython::kFrameEntry : 0)});
  }
  extras_.python_frames = python_frames_;
  extras_.python_frames_short = (r.flags & STROBE_F_RUNTIME_SHORT) != 0;
  // Without a user stack at all (a kernel thread has none to read).
  extras_.user_stack_unreadable = (r.flags & STROBE_F_NO_USER) == 0 &&
                                  ((r.flags & STROBE_F_USTACK_FAILED) != 0 && r.regs.empty());
  if (!r.regs.empty()) {
    static_assert(STROBE_REGS_COUNT == 17);
    s.regs_abi = kRegsAbi64;
    s.regs_mask = STROBE_REGS_MASK;
    s.regs = r.regs.data();
    s.regs_count = static_cast<uint32_t>(r.regs.size());
    s.stack = r.stack.data();
    s.stack_size = r.stack.size();
  }
  return s;
}

void BpfEngine::applyRaw(const uint8_t* bytes, size_t size, uint8_t, Converter& c) {
  auto rec = bpf::decodeRecord(bytes, size);
  if (!rec) {
    ++malformed_;
    return;
  }
  const bpf::Record& r = *rec;
  if (r.kind == STROBE_REC_SAMPLE && (r.flags & STROBE_F_USTACK_FAILED) != 0) ++walk_failed_;
  if (r.kind == STROBE_REC_SAMPLE && (r.flags & STROBE_F_STACK_FAILED) != 0) ++copy_failed_;
  switch (r.kind) {
    case STROBE_REC_SAMPLE: {
      ++samples_;
      const perf::SampleRecord s = sampleOf(r);  // fills extras_ first
      c.onSample(s, extras_);
      break;
    }
    case STROBE_REC_SWITCH_OUT: {
      ++switches_;
      const perf::SampleRecord s = sampleOf(r);
      c.onSwitchSample(s, extras_);
      perf::SwitchRecord w;
      w.pid = r.pid;
      w.tid = r.tid;
      w.time = r.time;
      w.cpu = r.cpu;
      w.out = true;
      w.preempted = (r.flags & STROBE_F_PREEMPTED) != 0;
      c.onSwitch(w);
      break;
    }
    case STROBE_REC_SWITCH_IN: {
      ++switches_;
      perf::SwitchRecord w;
      w.pid = r.pid;
      w.tid = r.tid;
      w.time = r.time;
      w.cpu = r.cpu;
      c.onSwitch(w);
      break;
    }
    default:
      break;
  }
}

void BpfEngine::noteLost(Converter& c) {
  const bpf::Counters now = program_->counters();
  if (now.lost_samples > reported_.lost_samples) {
    perf::LostRecord l;
    l.lost = now.lost_samples - reported_.lost_samples;
    c.apply(l, Stream::kMain);
  }
  if (now.lost_switches > reported_.lost_switches) {
    perf::LostRecord l;
    l.lost = now.lost_switches - reported_.lost_switches;
    c.apply(l, Stream::kOffCpu);
  }
  reported_ = now;
}

void BpfEngine::syncPython() {
  if (converter_ == nullptr) return;
  PythonFrames& python = converter_->pythonFrames();
  for (pid_t pid : python.takeFound()) {
    const cpython::Interpreter* in = python.interpreter(pid);
    if (in == nullptr) continue;
    const cpython::Layout& l = in->layout;
    strobe_python_proc p{};
    p.runtime = in->runtime;
    p.runtime_interpreters_head = l.runtime_interpreters_head;
    p.interp_next = l.interp_next;
    p.interp_threads_head = l.interp_threads_head;
    p.tstate_next = l.tstate_next;
    p.tstate_native_thread_id = l.tstate_native_thread_id;
    p.tstate_cframe = l.tstate_cframe;
    p.tstate_current_frame = l.tstate_current_frame;
    p.cframe_current_frame = l.cframe_current_frame;
    p.frame_code = l.frame_code;
    p.frame_previous = l.frame_previous;
    p.frame_instr = l.frame_instr;
    p.frame_owner = l.frame_owner;
    p.frame_is_entry = l.frame_is_entry;
    p.frame_read_size = l.frameReadSize();
    static_assert(cpython::kNoField == STROBE_NO_FIELD);
    static_assert(cpython::kOwnerCStack == STROBE_PY_OWNER_CSTACK);
    if (p.frame_read_size > STROBE_PY_FRAME_READ || !program_->setPython(pid, p)) continue;
    python_pids_.insert(pid);
  }
  for (auto it = python_pids_.begin(); it != python_pids_.end();) {
    if (python.interpreter(*it) == nullptr) {
      program_->forgetPython(*it);
      it = python_pids_.erase(it);
    } else {
      ++it;
    }
  }
}

void BpfEngine::afterPass(uint64_t, std::vector<std::string>&) {
  if (converter_ != nullptr) noteLost(*converter_);
  syncPython();
}

void BpfEngine::finish(ConverterStats& stats, RecordOutcome& out,
                       std::vector<std::string>& warnings) {
  if (converter_ != nullptr) {
    noteLost(*converter_);
    stats = converter_->stats();
  }
  // Its events count every task of a CPU: the targets' unsampled CPU is not known.
  stats.unsampled_count = 0;
  RingStats ring;
  ring.samples = samples_;
  ring.lost = reported_.lost_samples;
  out.rings.push_back(ring);
  if (opt_.off_cpu) {
    RingStats off;
    off.samples = switches_;
    off.lost = reported_.lost_switches;
    off.off_cpu = true;
    out.rings.push_back(off);
  }
  for (const auto& r : rings_) {
    RingStats side;
    side.cpu = r->cpu;
    side.corrupt = r->buffer.corruptCount();
    out.rings.push_back(side);
  }
  out.events_opened = events_opened_;
  out.malformed_records += malformed_;
  // Stacks the program could not read at all, once they are 1% of the
  // samples (a short copy is the unwinder's to report, as for the perf
  // engine).
  if ((walk_failed_ + copy_failed_) * 100 > samples_) {
    warnings.push_back(std::to_string(walk_failed_ + copy_failed_) + " of " +
                       std::to_string(samples_) +
                       " samples: the BPF program could not read the user stack (" +
                       std::to_string(walk_failed_) + " frame-pointer walks refused, " +
                       std::to_string(copy_failed_) + " stack copies without a readable byte)");
  }
  if (sideband_lost_ > 0) {
    warnings.push_back(std::to_string(sideband_lost_) +
                       " mapping and thread records were lost: some frames may be unmapped "
                       "(enlarge the rings: --mmap-pages 512)");
  }
}

Status checkBpf(const RecordOptions& opt) {
  if (auto tc = perf::eventTypeConfig(opt.event); !tc) return tc.takeError();
  if (!opt.command.empty() && !opt.inherit) {
    return makeError(
        "the bpf engine follows every thread and child of a command, not the first "
        "thread alone (--no-inherit)",
        "use --engine perf with --no-inherit", ErrorKind::kUsage);
  }
  return bpf::checkAvailable();
}

std::unique_ptr<CaptureEngine> makeBpf(const RecordOptions& opt) {
  return std::make_unique<BpfEngine>(opt);
}

}  // namespace

const EngineInfo& bpfEngineInfo() {
  static const EngineInfo info{EngineKind::kBpf, "bpf", checkBpf, makeBpf};
  return info;
}

}  // namespace strobe::record
