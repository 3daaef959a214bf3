#include "record/converter.hpp"

#include <cstdio>
#include <type_traits>
#include <variant>

#include "base/hex.hpp"
#include "model/aggregate.hpp"
#include "model/measure.hpp"
#include "model/module_path.hpp"
#include "model/synthetic_frames.hpp"

namespace strobe::record {
namespace {

// The unwinder's view of one process: mappings give model module ids and
// file offsets; a module's file is its kept copy, else its path in the model.
class SpaceMap final : public unwind::AddressMap {
 public:
  SpaceMap(const AddressSpace& as, const model::Profile& p, const KeptFiles* kept,
           const Converter::FileLocator& locate, PythonFrames* python = nullptr, int32_t pid = 0)
      : as_(as), p_(p), kept_(kept), locate_(locate), python_(python), pid_(pid) {}
  bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const override {
    const Mapping* m = as_.find(avma);
    if (m == nullptr || m->module == model::kNone) return false;
    module = m->module;
    file_offset = avma - m->start + m->pgoff;
    return true;
  }
  unwind::Rule knownCodeRule(uint64_t pc, bool caller) const override {
    // CPython's perf trampolines live in anonymous executable memory.
    const Mapping* m = as_.find(caller ? pc - 1 : pc);
    if (python_ == nullptr || m == nullptr || m->module >= p_.modules().size() ||
        !model::isAnonymousCode(p_.str(p_.modules()[m->module].path))) {
      return {};
    }
    return python_->trampolineRule(pid_, pc, caller);
  }
  std::string modulePath(uint32_t module) const override {
    if (module >= p_.modules().size()) return {};
    const model::Module& m = p_.modules()[module];
    if (kept_ != nullptr) {
      std::string kept = kept_->pathFor(p_.str(m.path), p_.str(m.build_id));
      if (!kept.empty()) return kept;
    }
    if (locate_) return locate_(p_.str(m.path), p_.str(m.build_id));
    return p_.str(m.path);
  }

 private:
  const AddressSpace& as_;
  const model::Profile& p_;
  const KeptFiles* kept_;
  const Converter::FileLocator& locate_;
  PythonFrames* python_;
  int32_t pid_;
};

// The user part of a callchain (leaf first, starting at the ip).
void userChain(const perf::SampleRecord& r, const uint64_t*& chain, size_t& len) {
  chain = nullptr;
  len = 0;
  for (uint64_t i = 0; i < r.callchain_len; ++i) {
    if (r.callchain[i] != perf::kContextUser) continue;
    chain = r.callchain + i + 1;
    while (i + 1 + len < r.callchain_len && !perf::isContextMarker(chain[len])) ++len;
    return;
  }
}

model::StackEnd stackEndOf(const unwind::UnwindResult& u) {
  if (u.spliced) return model::StackEnd::kSpliced;
  switch (u.reason) {
    case unwind::StopReason::kEntry:
      return model::StackEnd::kEntry;
    case unwind::StopReason::kStackCopy:
      return model::StackEnd::kStackCopy;
    case unwind::StopReason::kNoCfi:
      return model::StackEnd::kNoCfi;
    case unwind::StopReason::kBadFrame:
    case unwind::StopReason::kDepthLimit:
      return model::StackEnd::kBadFrame;
  }
  return model::StackEnd::kBadFrame;
}

constexpr size_t kMaxUnwoundFrames = 1024;

// Stands for the [missing caller] frame in the scratch frames: no address
// (perf's context markers, which this is one of, are never frames).
constexpr uint64_t kMissingCallerFrame = UINT64_MAX;
// Python frames in frames_: this plus their location's id (above the
// build-id frames' pseudo addresses, below kMissingCallerFrame).
constexpr uint64_t kPythonFrameBase = 0xfff0'0000'0000'0000ULL;
bool isPythonFrame(uint64_t a) {
  return a >= kPythonFrameBase && a < kPythonFrameBase + (uint64_t{1} << 32);
}

}  // namespace

void Converter::enableFramePointerCheck() {
  fp_check_ = std::make_unique<unwind::Unwinder>();
}

void Converter::enableUnwinding(unwind::UnwindMode mode) {
  unwinder_ = std::make_unique<unwind::Unwinder>(mode);
  unwound_.assign(kMaxUnwoundFrames, 0);
}

model::StackEnd Converter::unwindSample(const perf::SampleRecord& r, AddressSpace& as,
                                        int32_t pid) {
  unwind::Registers regs;
  if (!unwind::registersFromPerf(r.regs_mask, r.regs, r.regs_count, regs)) {
    return model::StackEnd::kBadFrame;
  }
  const uint64_t* chain = nullptr;
  size_t chain_len = 0;
  userChain(r, chain, chain_len);
  unwind::StackCopy stack{regs.r[unwind::archRegs().sp], r.stack, r.stack_size};
  SpaceMap map(as, profile_, kept_, locate_file_, &python_, pid);
  unwind::UnwindResult u =
      unwinder_->unwind(map, regs, stack, chain, chain_len, unwound_.data(), unwound_.size());
  for (size_t i = 0; i < u.frames; ++i) {
    // Every frame but the leaf is a return address: step into the call.
    frames_.push_back(i == 0 ? unwound_[i] : unwound_[i] - 1);
  }
  ++stats_.unwound;
  stats_.unwind_rule_misses = unwinder_->stats().rule_misses;
  model::StackEnd end = stackEndOf(u);
  if (end == model::StackEnd::kStackCopy || end == model::StackEnd::kNoCfi ||
      end == model::StackEnd::kBadFrame) {
    ++stats_.truncated;
  }
  return end;
}

Converter::Converter(model::Profile& profile, uint64_t start_ns)
    : profile_(profile),
      start_ns_(start_ns),
      throttle_(model::isTimeEvent(profile.meta().event)),
      kind_(model::kindOfEvent(profile.meta().event)) {}

void Converter::apply(const perf::Record& r, Stream stream) {
  if (stream == Stream::kOffCpu) {
    // The off-CPU event has no side-band records; its LOSTs are switch records.
    if (const auto* s = std::get_if<perf::SampleRecord>(&r)) onSwitchSample(*s);
    if (const auto* w = std::get_if<perf::SwitchRecord>(&r)) onSwitch(*w);
    if (const auto* l = std::get_if<perf::LostRecord>(&r)) stats_.switch_lost += l->lost;
    return;
  }
  std::visit(
      [this](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, perf::SampleRecord>) onSample(v);
        if constexpr (std::is_same_v<T, perf::Mmap2Record>) onMmap(v);
        if constexpr (std::is_same_v<T, perf::CommRecord>) onComm(v);
        if constexpr (std::is_same_v<T, perf::TaskRecord>) onTask(v);
        if constexpr (std::is_same_v<T, perf::LostRecord>) onLost(v);
        if constexpr (std::is_same_v<T, perf::ThrottleRecord>) onThrottle(v);
        if constexpr (std::is_same_v<T, perf::SwitchRecord>) onSwitch(v);
      },
      r);
}

void Converter::enableOffCpu(uint64_t min_ns) {
  off_cpu_ = std::make_unique<OffCpuPairer>(profile_, start_ns_, min_ns);
}

void Converter::releaseUnwindPages() {
  if (unwinder_) unwinder_->closeIdleModules();
  if (fp_check_) fp_check_->closeIdleModules();
}

void Converter::finish(uint64_t end_ns) {
  if (off_cpu_ == nullptr) return;
  off_cpu_->finish(end_ns);
  stats_.off_cpu = off_cpu_->stats();
}

std::vector<model::Sample> Converter::openOffCpu(uint64_t now_ns) const {
  if (off_cpu_ == nullptr) return {};
  return off_cpu_->openIntervals(now_ns);
}

void Converter::onSwitchSample(const perf::SampleRecord& r) {
  auto pid = static_cast<int32_t>(r.pid);
  auto tid = static_cast<int32_t>(r.tid);
  if (off_cpu_ == nullptr || tid == 0) return;  // tid 0: the idle task (-a)
  if (!pid_filter_.empty() && pid_filter_.count(pid) == 0) return;
  ++stats_.switch_samples;
  if (profile_.findThread(tid) == nullptr) nameThread(pid, tid, std::string());
  model::StackEnd end = model::StackEnd::kNotJudged;
  model::StackId stack = stackOf(r, pid, tid, end, /*with_kernel_leaf=*/false);
  off_cpu_->onStackSample(tid, r.time, r.cpu, stack, end);
}

void Converter::onSwitch(const perf::SwitchRecord& r) {
  auto tid = static_cast<int32_t>(r.tid);
  if (off_cpu_ == nullptr || tid == 0) return;
  if (!pid_filter_.empty() && pid_filter_.count(static_cast<int32_t>(r.pid)) == 0) return;
  if (r.out) {
    off_cpu_->onSwitchOut(tid, r.time, r.cpu, r.preempted);
  } else {
    off_cpu_->onSwitchIn(tid, r.time);
  }
}

void Converter::addMapping(int32_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
                           const std::string& path, const std::string& build_id) {
  model::ModuleId module = profile_.internModule(path, build_id);
  spaces_[pid].map(Mapping{start, end, pgoff, module});
  if (!build_id.empty()) build_id_frames_.noteModule(profile_, module);
  if (model::isAnonymousCode(path)) profile_.addAnonRegion(pid, start, end);
  if (model::isJitdumpMarker(path)) jitdump_markers_.push_back(JitdumpMarker{pid, path});
  if (kept_ != nullptr) kept_->onMapping(pid, start, end, path, build_id);
  python_.onMapping(pid, start, pgoff, path);
  ++space_generation_;
}

void Converter::nameThread(int32_t pid, int32_t tid, const std::string& name) {
  model::Thread t{tid, pid, name, {}};
  // A role the program gave the thread (live views) outlasts a new name.
  if (const model::Thread* known = profile_.findThread(tid);
      known != nullptr && known->pid == pid) {
    t.role = known->role;
  }
  profile_.setThread(std::move(t));
}

void Converter::onMmap(const perf::Mmap2Record& r) {
  std::string build_id =
      r.build_id_size > 0 ? hexString(r.build_id, r.build_id_size) : std::string();
  addMapping(static_cast<int32_t>(r.pid), r.addr, r.addr + r.len, r.pgoff, std::string(r.filename),
             build_id);
}

void Converter::onComm(const perf::CommRecord& r) {
  // exec replaces the address space; the new image's MMAP2 records follow.
  if (r.exec && r.pid == r.tid) {
    spaces_[static_cast<int32_t>(r.pid)].clear();
    python_.forget(static_cast<int32_t>(r.pid));
    ++space_generation_;
  }
  nameThread(static_cast<int32_t>(r.pid), static_cast<int32_t>(r.tid), std::string(r.comm));
}

void Converter::onTask(const perf::TaskRecord& r) {
  if (!r.is_fork) {
    const auto tid = static_cast<int32_t>(r.tid);
    // A thread's EXIT comes after its samples (records arrive in time order).
    const bool ours = pid_filter_.empty() || pid_filter_.count(static_cast<int32_t>(r.pid)) != 0;
    if (cpu_sampled_.erase(tid) == 0 && ours && tid != 0) ++stats_.unsampled_threads;
    if (off_cpu_ != nullptr) off_cpu_->onExit(static_cast<int32_t>(r.tid), r.time);
    if (r.pid == r.tid) exited_[static_cast<int32_t>(r.pid)] = r.time;
    throttle_.onExit(static_cast<int32_t>(r.tid), r.time, profile_.mutableSamples());
    noteThrottles();
    return;
  }
  if (off_cpu_ != nullptr) off_cpu_->onFork(static_cast<int32_t>(r.tid));
  cpu_sampled_.erase(static_cast<int32_t>(r.tid));
  // A new thread: its id may have been used before.
  prefixes_.erase(static_cast<int32_t>(r.tid));
  auto pid = static_cast<int32_t>(r.pid);
  auto ppid = static_cast<int32_t>(r.ppid);
  // A new thread or process starts with its creator's name.
  const model::Thread* parent = profile_.findThread(static_cast<int32_t>(r.ptid));
  if (profile_.findThread(static_cast<int32_t>(r.tid)) == nullptr) {
    nameThread(pid, static_cast<int32_t>(r.tid), parent != nullptr ? parent->name : std::string());
  }
  // A new process starts with a copy of its parent's address space.
  if (pid != ppid) {
    exited_.erase(pid);  // a reused pid
    auto it = spaces_.find(ppid);
    if (it != spaces_.end()) spaces_[pid] = it->second;
    python_.forget(pid);
    python_.onFork(ppid, pid);
    ++space_generation_;
  }
}

model::LocationId Converter::locate(AddressSpace& as, uint64_t addr) {
  const Mapping* m = as.find(addr);
  if (m == nullptr) {
    ++stats_.unmapped_frames;
    return profile_.internLocation(model::kNone, addr, addr);
  }
  return profile_.internLocation(m->module, addr - m->start + m->pgoff, addr);
}

void Converter::onSample(const perf::SampleRecord& r) {
  auto pid = static_cast<int32_t>(r.pid);
  auto tid = static_cast<int32_t>(r.tid);
  if (!pid_filter_.empty() && pid_filter_.count(pid) == 0) {
    ++stats_.filtered;
    return;
  }
  // The idle task (tid 0, sampled by -a now that kernel time is) runs when
  // no process does: it is no one's CPU time.
  if (tid == 0) return;
  ++stats_.samples;
  if (profile_.findThread(tid) == nullptr) nameThread(pid, tid, std::string());
  cpu_sampled_.insert(tid);
  stats_.sampled_weight += r.period;
  if (off_cpu_ != nullptr) off_cpu_->onRunning(tid, r.time);
  model::StackEnd end = model::StackEnd::kNotJudged;
  model::StackId stack = stackOf(r, pid, tid, end, /*with_kernel_leaf=*/true);
  uint64_t t = r.time >= start_ns_ ? r.time - start_ns_ : 0;
  model::Sample s{t, tid, r.cpu, stack, r.period, end};
  s.kind = kind_;
  profile_.addSample(s);
  throttle_.onSample(profile_.samples(), r.time);
}

void Converter::onSample(const perf::SampleRecord& r, const SampleExtras& extras) {
  extras_ = &extras;
  onSample(r);
  extras_ = nullptr;
}

void Converter::onSwitchSample(const perf::SampleRecord& r, const SampleExtras& extras) {
  extras_ = &extras;
  onSwitchSample(r);
  extras_ = nullptr;
}

void Converter::onThrottle(const perf::ThrottleRecord& r) {
  if (r.throttle) {
    ++stats_.throttled;
    throttle_.onThrottle(r.id, static_cast<int32_t>(r.tid), r.time);
  } else {
    throttle_.onUnthrottle(r.id, r.time, profile_.mutableSamples());
    noteThrottles();
  }
}

void Converter::noteThrottles() {
  stats_.throttled_ns = throttle_.throttledNs();
  stats_.throttle_weighted_ns = throttle_.weightedNs();
}

model::StackId Converter::stackOf(const perf::SampleRecord& r, int32_t pid, int32_t tid,
                                  model::StackEnd& end, bool with_kernel_leaf) {
  // Leaf-first addresses. Context markers separate kernel and user parts;
  // user frames are kept, kernel frames only with setKernelFrames(true)
  // (they come first: the kernel part is nearer the leaf).
  frames_.clear();
  kernel_count_ = 0;
  AddressSpace& as = spaces_[pid];
  end = model::StackEnd::kNotJudged;
  // A sample in the kernel without -k: one [kernel] frame on top of the user
  // stack that entered the kernel (the callchain holds only that stack).
  const bool kernel_leaf = with_kernel_leaf && !kernel_frames_ && perf::isKernelAddress(r.ip);
  if (kernel_leaf) {
    frames_.push_back(r.ip);
    kernel_count_ = 1;
  }
  if (unwinder_ != nullptr && r.regs != nullptr) {
    // -k: the kernel part of the callchain goes first (nearer the leaf).
    if (kernel_frames_) pushKernelFrames(r);
    end = unwindSample(r, as, pid);
    if (frames_.empty()) frames_.push_back(r.ip);
  } else if (r.callchain_len == 0 && (extras_ == nullptr || extras_->user_frames.empty())) {
    if (!kernel_leaf) frames_.push_back(r.ip);
    if (kernel_frames_ && perf::isKernelAddress(r.ip)) kernel_count_ = 1;
  } else {
    enum { kOther, kUser, kKernel } part = kOther;
    for (uint64_t i = 0; i < r.callchain_len; ++i) {
      uint64_t v = r.callchain[i];
      if (perf::isContextMarker(v)) {
        part = v == perf::kContextUser ? kUser : v == perf::kContextKernel ? kKernel : kOther;
        continue;
      }
      if (part == kKernel && kernel_frames_ && kernel_count_ == frames_.size()) {
        frames_.push_back(frames_.empty() ? v : v - 1);
        ++kernel_count_;
        continue;
      }
      if (part != kUser) continue;
      // The kernel's frame-pointer walk ends on a zeroed frame at the
      // thread's entry: a return address of 0 is the end, not a frame.
      if (v == 0 && frames_.size() > kernel_count_) break;
      // Every frame but the leaf is a return address: step into the call.
      // The first user frame is the interrupted pc, also under kernel frames.
      frames_.push_back(frames_.size() == kernel_count_ ? v : v - 1);
    }
    for (const BuildIdFrame& f :
         extras_ != nullptr ? extras_->user_frames : std::span<const BuildIdFrame>()) {
      if (f.build_id == nullptr && f.offset == 0) break;  // the walk's end, as above
      frames_.push_back(
          build_id_frames_.resolve(profile_, as, f, /*leaf=*/frames_.size() == kernel_count_));
    }
    if (frames_.empty()) frames_.push_back(r.ip);
    // -g fp: a leaf without its frame set up hid its caller from the walk.
    if (fp_check_ != nullptr && frames_.size() > kernel_count_ + 1) {
      SpaceMap map(as, profile_, kept_, locate_file_);
      if (fp_check_->framePointerSetUp(map, frames_[kernel_count_]) == false) {
        frames_.insert(frames_.begin() + static_cast<std::ptrdiff_t>(kernel_count_ + 1),
                       kMissingCallerFrame);
      }
    }
  }

  python_frames_ = 0;
  if (extras_ != nullptr && !extras_->python_frames.empty()) mergePythonFrames(pid);

  // The engine could not read the user stack: that, not a broken chain,
  // is why it ends (an unwinder's own verdict stands).
  if (extras_ != nullptr && extras_->user_stack_unreadable && end == model::StackEnd::kNotJudged) {
    end = model::StackEnd::kBadFrame;
  }

  // Consecutive samples of a thread share most of their root-side frames
  // (deep -g dwarf stacks above all): reuse the stack nodes of the previous
  // sample's common prefix instead of looking each frame up again. Any
  // change to an address space invalidates every prefix.
  Prefix& prefix = prefixes_[tid];
  if (prefix.generation != space_generation_ || prefix.pid != pid) {
    prefix.frames.clear();
    prefix.generation = space_generation_;
    prefix.pid = pid;
  }
  const size_t n = frames_.size();
  size_t k = 0;
  while (k < n && k < prefix.frames.size() && prefix.frames[k].address == frames_[n - 1 - k]) ++k;
  prefix.frames.resize(k);
  model::StackId stack = k > 0 ? prefix.frames[k - 1].stack : model::kNone;
  stats_.unmapped_frames += k > 0 ? prefix.frames[k - 1].unmapped : 0;
  for (size_t i = k; i < n; ++i) {
    const uint64_t before = stats_.unmapped_frames;
    // Kernel frames (-k) are the leaf-most kernel_count_ of frames_.
    const size_t j = n - 1 - i;
    model::LocationId loc;
    if (j < kernel_count_) {
      loc = kernelLocation(frames_[j]);
    } else if (python_frames_ != 0 && isPythonFrame(frames_[j]) &&
               frames_[j] - kPythonFrameBase < profile_.locations().size()) {
      loc = static_cast<model::LocationId>(frames_[j] - kPythonFrameBase);
    } else if (build_id_frames_.isPseudo(frames_[j])) {
      const auto [module, offset] = build_id_frames_.location(frames_[j]);
      loc = profile_.internLocation(module, offset, 0);
    } else if (frames_[j] == kMissingCallerFrame) {
      if (missing_caller_location_ == model::kNone) {
        missing_caller_location_ = model::missingCallerLocation(profile_);
      }
      loc = missing_caller_location_;
    } else {
      loc = locate(as, frames_[j]);
    }
    stack = profile_.internStack(stack, loc);
    const uint32_t unmapped = (i > 0 ? prefix.frames[i - 1].unmapped : 0) +
                              static_cast<uint32_t>(stats_.unmapped_frames - before);
    prefix.frames.push_back(PrefixFrame{frames_[n - 1 - i], stack, unmapped});
  }
  return stack;
}

void Converter::mergePythonFrames(int32_t pid) {
  const cpython::Interpreter* in = python_.interpreter(pid);
  if (in == nullptr) return;  // not (or no longer) a process strobe reads
  const std::span<const cpython::RuntimeFrame> python = extras_->python_frames;
  user_scratch_.assign(frames_.begin() + static_cast<std::ptrdiff_t>(kernel_count_), frames_.end());
  cpython::mergeStacks(
      user_scratch_.data(), user_scratch_.size(), [in](uint64_t a) { return in->isEvalFrame(a); },
      python.data(), python.size(), merged_);
  frames_.resize(kernel_count_);
  for (const cpython::MergedFrame& m : merged_) {
    frames_.push_back(m.python ? kPythonFrameBase + python_.locate(profile_, pid, python[m.value])
                               : m.value);
    python_frames_ += m.python ? 1 : 0;
  }
}

void Converter::pushKernelFrames(const perf::SampleRecord& r) {
  bool kernel = false;
  for (uint64_t i = 0; i < r.callchain_len; ++i) {
    uint64_t v = r.callchain[i];
    if (perf::isContextMarker(v)) {
      if (kernel) break;  // the kernel part is one run of frames
      kernel = v == perf::kContextKernel;
      continue;
    }
    if (!kernel) continue;
    frames_.push_back(frames_.empty() ? v : v - 1);
    ++kernel_count_;
  }
}

model::LocationId Converter::kernelLocation(uint64_t addr) {
  if (!kernel_frames_) {
    if (kernel_time_location_ == model::kNone) {
      kernel_time_location_ = model::kernelTimeLocation(profile_);
    }
    return kernel_time_location_;
  }
  if (kernel_module_ == model::kNone) {
    kernel_module_ = profile_.internModule(kKernelModule, "");
  }
  return profile_.internLocation(kernel_module_, addr, addr);
}

std::vector<model::StackId> Converter::liveStacks() const {
  std::vector<model::StackId> out;
  if (off_cpu_) off_cpu_->liveStacks(out);
  return out;
}

void Converter::afterCompaction(const model::Compaction& c) {
  prefixes_.clear();  // a cache: the next sample of each thread interns its whole stack
  if (off_cpu_) off_cpu_->remapStacks(c.stack_map);
  throttle_.afterCompaction(c.samples_dropped, profile_.samples());
  // Sessions that compact run for days: modules seen once must not hold a
  // descriptor and mapped pages for the rest of the run.
  if (unwinder_ != nullptr) unwinder_->closeIdleModules();
  if (fp_check_ != nullptr) fp_check_->closeIdleModules();
}

void Converter::forgetExited(uint64_t before_ns) {
  for (auto it = exited_.begin(); it != exited_.end();) {
    if (it->second < before_ns) {
      spaces_.erase(it->first);
      python_.forget(it->first);
      if (kept_ != nullptr) kept_->forgetProcess(it->first);
      it = exited_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace strobe::record
