// Converter: the one place where raw perf records become the model. It
// follows each process's address space (MMAP2, exec COMM, FORK), names
// threads (COMM, FORK), and turns each SAMPLE's callchain into an interned
// stack of locations (module + file offset). Shared by `record`, `top` and
// `strobe import` (records read from a perf.data).
//
// With unwinding enabled (-g dwarf / auto), a SAMPLE carrying user registers
// and a stack copy is unwound here, as the recorder drains, with the
// unwinder's memoized CFI rules; the stack copy is never kept. Its kernel
// frame-pointer chain is spliced in where the CFI walk ends early, and the
// sample's StackEnd records how its stack ended.
//
// Processes that run a CPython interpreter are followed from their
// mappings (python_frames.hpp): under -g dwarf / auto, frames in its perf
// trampolines (-X perf: code without unwind information) are stepped by
// the trampoline's known code.
//
// With off-CPU recording enabled (record --off-cpu), records of the
// off-CPU stream (the context-switch event's samples and SWITCH records)
// go to an OffCpuPairer (off_cpu.hpp), which stores one kOffCpu sample per
// interval a thread spent off CPU.
//
// A capture engine that reads more at the sample than perf's SampleRecord
// holds hands it over in SampleExtras (onSample's second form): user frames
// named by build-id and file offset (build_id_frames.hpp), a user stack it
// could not read. Interpreter frames are meant to join them there.
//
// Records must arrive in time order (see EventQueue). Caller frames are
// return addresses: the converter stores return address − 1 so that later
// lookups land in the call instruction (FIELD-NOTES: "Return addresses").
// Thread safety: none; one converter per draining thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cpython/stack_merge.hpp"
#include "model/compact.hpp"
#include "model/profile.hpp"
#include "perf/records.hpp"
#include "record/address_space.hpp"
#include "record/build_id_frames.hpp"
#include "record/kept_files.hpp"
#include "record/off_cpu.hpp"
#include "record/python_frames.hpp"
#include "record/throttle_account.hpp"
#include "unwind/unwinder.hpp"

namespace strobe::record {

// The module of kernel frames (offset == address).
inline constexpr const char* kKernelModule = "[kernel.kallsyms]";

struct ConverterStats {
  uint64_t samples = 0;
  uint64_t lost = 0;                  // samples the kernel dropped (LOST records)
  uint64_t throttled = 0;             // THROTTLE records
  uint64_t throttled_ns = 0;          // how long sampling stayed throttled (ThrottleAccount)
  uint64_t throttle_weighted_ns = 0;  // of that, given back to the throttled samples' weights
  uint64_t unmapped_frames = 0;       // frames that fell in no known mapping
  uint64_t unwound = 0;               // samples unwound from registers and a stack copy
  uint64_t truncated = 0;             // of those: stacks that ended early (StackEnd 2..4)
  uint64_t unwind_rule_misses = 0;    // CFI rules compiled (the rest were table lookups)
  uint64_t filtered = 0;              // samples of other processes (pid filter)
  // What the CPU samples weigh in all (their periods, and the throttled
  // time given back to them): ns of CPU for the time events.
  uint64_t sampled_weight = 0;
  // Threads that exited without a single sample (EXIT records of threads
  // that had none since they started).
  uint64_t unsampled_threads = 0;
  // What the events counted and no sample covers: the session sets it from
  // the events' counts (Session::unsampledCount); 0 where it cannot.
  uint64_t unsampled_count = 0;
  // --off-cpu: the context-switch event's samples, records it lost, and
  // what pairing them made.
  uint64_t switch_samples = 0;
  uint64_t switch_lost = 0;
  OffCpuStats off_cpu;
};

// What a capture engine read at a sample beyond perf's SampleRecord.
struct SampleExtras {
  // The user stack (leaf first) as build-id frames, instead of the
  // callchain's user part (the callchain then holds the kernel part only).
  std::span<const BuildIdFrame> user_frames;
  // The engine could not read the user stack at all: the stack ends there
  // for that reason (StackEnd::kBadFrame), not for a broken frame chain.
  bool user_stack_unreadable = false;
  // The thread's Python frames (leaf first) read at the sample: they take
  // the place of the native eval-loop frames that run them
  // (cpython/stack_merge.hpp). `python_frames_short`: the program read
  // only the newest of them (too many, or one unreadable).
  std::span<const cpython::RuntimeFrame> python_frames;
  bool python_frames_short = false;
};

// Which event a record came from.
enum class Stream : uint8_t {
  kMain = 0,    // the sampling event (and its side-band records)
  kOffCpu = 1,  // the off-CPU event: context-switch samples and SWITCH records
};

class Converter {
 public:
  // Sample times are stored relative to `start_ns` (CLOCK_MONOTONIC).
  // The main stream's samples get the kind of profile.meta().event
  // (model::kindOfEvent).
  Converter(model::Profile& profile, uint64_t start_ns);

  // Dispatches one decoded record to the handler below.
  void apply(const perf::Record& r, Stream stream = Stream::kMain);

  void onSample(const perf::SampleRecord& r);
  // A sample (and the off-CPU stream's switch-out) with what the engine
  // read beyond the record.
  void onSample(const perf::SampleRecord& r, const SampleExtras& extras);
  void onSwitchSample(const perf::SampleRecord& r, const SampleExtras& extras);
  void onMmap(const perf::Mmap2Record& r);
  void onComm(const perf::CommRecord& r);
  void onTask(const perf::TaskRecord& r);
  void onLost(const perf::LostRecord& r) { stats_.lost += r.lost; }
  void onThrottle(const perf::ThrottleRecord& r);
  // The off-CPU stream: a switch-out's stack, and SWITCH records.
  void onSwitchSample(const perf::SampleRecord& r);
  void onSwitch(const perf::SwitchRecord& r);

  // Seeds a process's mappings and a thread's name (attach; tests).
  void addMapping(int32_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
                  const std::string& path, const std::string& build_id);
  void nameThread(int32_t pid, int32_t tid, const std::string& name);

  // Unwinds samples that carry user registers and a stack copy.
  void enableUnwinding(unwind::UnwindMode mode);
  // -g fp: checks each sample's user leaf against its module's CFI; where
  // the leaf had not set up its frame pointer, the kernel's walk skipped its
  // caller, and a [missing caller] frame (model/synthetic_frames.hpp) goes
  // between the leaf and the next frame.
  void enableFramePointerCheck();
  // Pairs the off-CPU stream into off-CPU samples; intervals shorter than
  // min_ns are counted, not stored.
  void enableOffCpu(uint64_t min_ns);
  // Ends the open off-CPU intervals at end_ns (CLOCK_MONOTONIC), once the
  // last record is applied.
  void finish(uint64_t end_ns);
  // Lets the module files the unwinders mapped go from memory (their CFI
  // pages; Unwinder::closeIdleModules). For a conversion that has applied
  // its last record: a perf.data's report otherwise held them through the
  // symbolization that follows, its peak memory (docs/BENCHMARKS.md).
  void releaseUnwindPages();
  // Open off-CPU intervals as samples clipped at now_ns (live views).
  std::vector<model::Sample> openOffCpu(uint64_t now_ns) const;

  // -k: keep the kernel part of callchains. Kernel frames get the module
  // "[kernel.kallsyms]" with offset == address (the kernel address).
  // Without it, a sample taken in the kernel gets one [kernel] frame
  // (model/synthetic_frames.hpp) on top of its user stack.
  void setKernelFrames(bool keep) { kernel_frames_ = keep; }
  // Keep only samples of these processes (per-CPU events filtered to an
  // attach's targets); empty: keep everything.
  void setPidFilter(std::unordered_set<int32_t> pids) { pid_filter_ = std::move(pids); }

  // Files to keep open as their mappings are seen (see kept_files.hpp);
  // the unwinder reads a module's CFI from its kept copy when there is one.
  // Not owned; null: none kept.
  void setKeptFiles(KeptFiles* kept) { kept_ = kept; }
  // Where a module's file is, when there is no kept copy of it (strobe
  // import: its path if it still holds the recorded build-id, else perf's
  // build-id cache): (path, build-id) -> a path to open, "" for none (its
  // frames then have no CFI). Without one, the module's own path. Asked by
  // the unwinder, once per module.
  using FileLocator =
      std::function<std::string(const std::string& path, const std::string& build_id)>;
  void setFileLocator(FileLocator locate) { locate_file_ = std::move(locate); }

  const ConverterStats& stats() const { return stats_; }
  // The processes that run a CPython interpreter (python_frames.hpp).
  PythonFrames& pythonFrames() { return python_; }

  // Mappings that name JIT code: anonymous executable memory becomes the
  // process's AnonRegions in the Profile; a mapping of a jit-PID.dump file
  // is a runtime's marker for its jitdump (see symbolize/jit_files.hpp).
  struct JitdumpMarker {
    int32_t pid = 0;
    std::string path;
  };
  // The markers seen since the last call.
  std::vector<JitdumpMarker> takeJitdumpMarkers() { return std::move(jitdump_markers_); }

  // Stack ids the converter still holds and will store later (open
  // off-CPU intervals); a compaction must keep them (model/compact.hpp).
  std::vector<model::StackId> liveStacks() const;
  // After a compaction dropped samples and renumbered the Profile's stacks:
  // follows the stack map (old id -> new id) and the samples' new places,
  // and forgets its cache of recent stacks; the unwinders close the CFI of
  // the modules idle since the previous compaction.
  void afterCompaction(const model::Compaction& c);
  // Forgets the address spaces of processes whose main thread exited
  // before before_ns (CLOCK_MONOTONIC), once every record up to then is
  // applied (a session that runs for days sees many processes come and
  // go), and the kept files only they mapped. Threads that outlive their
  // process's main thread lose their mappings then (their frames become
  // unmapped).
  void forgetExited(uint64_t before_ns);

 private:
  model::LocationId locate(AddressSpace& as, uint64_t addr);
  // Interns the sample's stack (leaf first in frames_); sets `end`.
  // with_kernel_leaf: without -k, a sample taken in the kernel gets one [kernel]
  // frame on top of its user stack (CPU samples); a switch-out (off-CPU)
  // sample, always taken in the scheduler, does not: its time was not spent
  // on a CPU in the kernel, and its stack ends where the thread blocked.
  model::StackId stackOf(const perf::SampleRecord& r, int32_t pid, int32_t tid,
                         model::StackEnd& end, bool with_kernel_leaf);
  // Puts the sample's Python frames (extras_) among the user frames of
  // frames_, as pseudo addresses of their locations (kPythonFrameBase).
  void mergePythonFrames(int32_t pid);
  // Fills frames_ from the sample's registers and stack; returns how it ended.
  model::StackEnd unwindSample(const perf::SampleRecord& r, AddressSpace& as, int32_t pid);
  model::LocationId kernelLocation(uint64_t addr);
  // Appends the kernel part of the sample's callchain to frames_ (-k with unwinding).
  void pushKernelFrames(const perf::SampleRecord& r);
  // Copies the throttle account's figures into stats_.
  void noteThrottles();

  model::Profile& profile_;
  uint64_t start_ns_;
  std::unordered_map<int32_t, AddressSpace> spaces_;  // by pid
  std::unordered_map<int32_t, uint64_t> exited_;      // pid -> its main thread's EXIT time
  std::vector<uint64_t> frames_;                      // scratch: leaf first
  struct PrefixFrame {
    uint64_t address;
    model::StackId stack;  // the node for the frames from the root to here
    uint32_t unmapped;     // unmapped frames from the root to here
  };
  struct Prefix {
    uint64_t generation = 0;
    int32_t pid = 0;
    std::vector<PrefixFrame> frames;  // root first
  };
  // The last stack of each tid that has had a sample since it started.
  std::unordered_map<int32_t, Prefix> prefixes_;
  uint64_t space_generation_ = 0;               // bumped by every address-space change
  std::unique_ptr<unwind::Unwinder> unwinder_;  // null: no unwinding
  std::unique_ptr<unwind::Unwinder> fp_check_;  // -g fp: leaves' CFI rules (no unwinding)
  model::LocationId missing_caller_location_ = model::kNone;
  std::vector<uint64_t> unwound_;  // scratch for the unwinder
  size_t kernel_count_ = 0;        // leading kernel frames in frames_
  bool kernel_frames_ = false;
  model::ModuleId kernel_module_ = model::kNone;
  model::LocationId kernel_time_location_ = model::kNone;  // [kernel] (without -k)
  std::unordered_set<int32_t> pid_filter_;
  BuildIdFrames build_id_frames_;
  const SampleExtras* extras_ = nullptr;  // of the sample being converted
  KeptFiles* kept_ = nullptr;
  FileLocator locate_file_;
  PythonFrames python_;
  std::vector<cpython::MergedFrame> merged_;  // mergePythonFrames' scratch
  std::vector<uint64_t> user_scratch_;
  size_t python_frames_ = 0;  // pseudo addresses of Python frames in frames_
  std::vector<JitdumpMarker> jitdump_markers_;
  // Live threads with a CPU sample (an EXIT of any other is unsampled).
  std::unordered_set<int32_t> cpu_sampled_;
  ThrottleAccount throttle_;               // throttled time given back to samples' weights
  std::unique_ptr<OffCpuPairer> off_cpu_;  // null: no off-CPU stream
  model::SampleKind kind_ = model::SampleKind::kCpu;  // of the main stream's samples
  ConverterStats stats_;
};

}  // namespace strobe::record
