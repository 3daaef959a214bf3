// Profile: the in-memory model of one recording, shared by the recorder, the
// store and every output. It mirrors pprof's model so writers stay thin:
//   Module   — a mapped file (path, build-id)
//   Function — a symbol: demangled name, raw (system) name, source file.
//              Compiler clones of one function (foo, foo.part.0, foo.cold)
//              are several Functions with one identity (identity())
//   Location — one sampled address in one module, with its symbolized lines
//              (innermost first: an inline chain yields several lines)
//   Stack    — a node of a trie of locations: (parent stack, location);
//              following parents walks from the leaf to the root
//   Sample   — time, thread, cpu, stack, weight, and what the weight
//              measures (SampleKind: ns of CPU, ns off CPU, ns of wall time
//              or a count of the event; model/measure.hpp names each)
//   Span     — an interval the program marked on a thread (name, depth);
//              threads may carry a role ("worker 3") the program gave them
// Interning (strings, modules, functions, locations, stacks) is memoized, so
// each distinct value is stored once.
//
// Addresses: Location::address is the process address (AVMA) that was
// sampled, except for caller frames, where it is the return address − 1 so
// that it falls inside the call instruction (see docs/FORMAT.md).
//
// Thread safety: none; one thread builds a Profile, then any number may read
// it. No I/O here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/jit_code.hpp"

namespace strobe::model {

using StringId = uint32_t;
using ModuleId = uint32_t;
using FunctionId = uint32_t;
using LocationId = uint32_t;
using StackId = uint32_t;

inline constexpr uint32_t kNone = UINT32_MAX;  // "no module", "root stack", ...
inline constexpr StringId kEmptyString = 0;    // interned "" is always id 0

struct Module {
  StringId path = kEmptyString;      // as mapped, e.g. /usr/lib/libc.so.6, [vdso]
  StringId build_id = kEmptyString;  // lowercase hex, "" when unknown
};

struct Function {
  StringId name = kEmptyString;         // demangled
  StringId system_name = kEmptyString;  // as in the symbol table
  StringId file = kEmptyString;         // source file, "" when unknown
  uint32_t start_line = 0;              // 0 when unknown
};

struct Line {
  FunctionId function = kNone;
  uint32_t line = 0;  // 0 when unknown
  // The file `line` is in: the line table's (innermost) or the call site's
  // (outer levels); "" when unknown. Not always the function's own file:
  // code of an inlined header, or a macro from another file.
  StringId file = kEmptyString;
};

struct Location {
  ModuleId module = kNone;  // kNone: the address fell in no known mapping
  uint64_t address = 0;     // AVMA (return address − 1 for callers)
  uint64_t offset = 0;      // file offset in the module (address when no module)
  std::vector<Line> lines;  // innermost first; empty until symbolized / when unknown
};

// The machine code of a function that holds samples, as the recorder kept it
// (see model/code.hpp and docs/FORMAT.md, tables `code` and `code_lines`):
// its range in its module, its bytes when they could be read and were within
// the bounds, and the line-table rows of the range.
struct CodeLine {
  uint32_t offset = 0;           // bytes from the function's first byte where the row starts
  StringId file = kEmptyString;  // source file, "" when unknown
  uint32_t line = 0;             // 0: no line for these bytes
};

struct FunctionCode {
  FunctionId function = kNone;  // the (outermost) function of these bytes; kNone if unnamed
  ModuleId module = kNone;
  uint64_t offset = 0;          // file offset of the first byte in the module (kernel: address)
  uint64_t address = 0;         // the first byte's address as the ELF file states it (SVMA)
  uint64_t size = 0;            // bytes in the function's range
  std::string arch;             // "x86_64" or "aarch64"; "" when unknown
  std::vector<uint8_t> bytes;   // the range's `size` bytes; empty when not kept
  uint64_t checksum = 0;        // codeChecksum(bytes) as recorded; 0 when not kept
  std::vector<CodeLine> lines;  // by offset
};

struct StackNode {
  StackId parent = kNone;  // kNone at the root-most frame
  LocationId location = kNone;
};

// How a sample's call stack ended, as the recorder judged it while
// unwinding (-g dwarf / auto). Reports turn it into the stack-completeness
// line (model::stackCompleteness).
enum class StackEnd : uint8_t {
  kNotJudged = 0,  // not unwound by strobe (-g fp / none): judged from the symbols
  kEntry = 1,      // the unwinder reached the outermost frame (CFI end, return address 0)
  kStackCopy = 2,  // truncated: the next frame lay past the end of the stack copy
  kNoCfi = 3,      // truncated: no unwind information for a frame
  kBadFrame = 4,   // truncated: unmapped code, an inconsistent or unreadable frame
  kSpliced = 5,    // the CFI walk ended early; the kernel's frame-pointer chain continued it
};
inline constexpr uint8_t kMaxStackEnd = 5;

// What a sample's weight measures. Aggregations add weights of one kind
// only, unless a view asks for a sum (wall = cpu + off-cpu; measure.hpp).
enum class SampleKind : uint8_t {
  kCpu = 0,     // ns of CPU time (cpu-clock, task-clock)
  kOffCpu = 1,  // ns off CPU from time_ns on: blocked or waiting for a CPU (record --off-cpu)
  kWall = 2,    // ns of wall-clock time (libstrobe's wall mode: running or not)
  kCount = 3,   // occurrences of Meta::event (page-faults, context-switches, cycles, ...)
};
inline constexpr uint8_t kMaxSampleKind = 3;

// Why an off-CPU sample's thread was off CPU (kUnknown for other kinds).
enum class OffCpuReason : uint8_t {
  kUnknown = 0,    // blocked; the kernel's stack was not available to tell why
  kSleep = 1,      // nanosleep, clock_nanosleep
  kIo = 2,         // reading, writing, polling, waiting for the disk or a page fault
  kLock = 3,       // futex (mutexes, condition variables), semaphores, kernel locks
  kPreempted = 4,  // still runnable: waiting for a CPU (the run queue), not blocked
  kOther = 5,      // blocked in another system call (wait4, sigsuspend, ...)
};
inline constexpr uint8_t kMaxOffCpuReason = 5;

struct Sample {
  uint64_t time_ns = 0;  // since Meta::start_monotonic_ns
  int32_t tid = 0;
  uint32_t cpu = 0;
  StackId stack = kNone;  // the leaf node; kNone for an empty stack
  uint64_t weight = 0;    // the event's period (ns of CPU time for cpu-clock); see kind
  StackEnd stack_end = StackEnd::kNotJudged;
  SampleKind kind = SampleKind::kCpu;
  OffCpuReason off_cpu_reason = OffCpuReason::kUnknown;  // kOffCpu samples only
};

// Which samples a report shows (model/measure.hpp decides what each view
// holds and how its weights are named).
enum class View : uint8_t {
  kAuto = 0,  // not chosen: the recording's own (measure.hpp: defaultView)
  kCpu,       // CPU time
  kOffCpu,    // off-CPU time
  kWall,      // CPU + off-CPU time (or libstrobe's wall-clock samples)
  kEvents,    // counts of a counting event (page-faults, ...)
};

struct Thread {
  int32_t tid = 0;
  int32_t pid = 0;
  std::string name;
  std::string role;  // the program's name for the thread's job ("worker 3"), "" when none
};

// An interval the program marked on one of its threads (strobe_span_begin /
// strobe_span_end). Spans of a thread nest: depth 0 is the outermost.
struct Span {
  int32_t tid = 0;
  uint32_t depth = 0;
  uint64_t start_ns = 0;  // since Meta::start_monotonic_ns, like Sample::time_ns
  uint64_t end_ns = 0;    // >= start_ns
  StringId name = kEmptyString;
};

struct Meta {
  std::vector<std::string> command;  // argv of the profiled command
  int32_t pid = 0;                   // the first process
  uint64_t start_realtime_ns = 0;    // wall-clock time of the start (UNIX epoch)
  uint64_t start_monotonic_ns = 0;   // CLOCK_MONOTONIC at the start
  uint64_t duration_ns = 0;
  uint32_t frequency = 0;         // requested Hz (0 when sampling by period)
  std::string event;              // e.g. "cpu-clock"
  std::string call_graph;         // "fp", "dwarf", "auto" or "none"
  std::string engine;             // the capture engine: "perf", "bpf"; "" for libstrobe
  uint32_t stack_copy_bytes = 0;  // -g dwarf / auto: user stack bytes copied per sample
  std::string hostname;
  std::string kernel;  // uname -r
  std::string strobe_version;
  uint64_t lost_samples = 0;     // reported by the kernel in LOST records
  uint64_t throttle_events = 0;  // THROTTLE records
  // How long the kernel kept sampling throttled (THROTTLE to UNTHROTTLE, all
  // events), and how much of the CPU time that went unsampled then was
  // given back to the weight of the sample each throttle began with
  // (record/throttle_account.hpp).
  uint64_t throttled_ns = 0;
  uint64_t throttle_weighted_ns = 0;
  // Threads that exited unsampled (each ran less than one sampling period)
  // and what they counted (ns of CPU for time events); inherited events only.
  uint64_t unsampled_threads = 0;
  uint64_t unsampled_count = 0;
  // Threads the profiler could not sample at all (libstrobe: an engine
  // refused them, e.g. no locked memory left for their perf rings), and why.
  uint64_t refused_threads = 0;
  std::string refused_reason;
  // user+sys CPU of the command (rusage; libstrobe: of the process during the
  // session), 0 if unknown
  uint64_t target_cpu_ns = 0;
  // Of target_cpu_ns, the part spent in the kernel (rusage's system time), 0 if unknown.
  uint64_t target_system_ns = 0;
  // 1 when samples were taken in the kernel too (its time on the user stack
  // that entered it, or with -k its frames); 0 when not, or unknown (older).
  uint32_t kernel_time = 0;
  // Why time in the kernel was not sampled ("" when it was, or when unknown):
  // the kernel refused kernel sampling, e.g. "kernel.perf_event_paranoid is 2, ...".
  std::string kernel_refused;
  int32_t exit_status = 0;     // as a shell reports it: 128+N for signal N
  uint64_t sample_period = 0;  // -c N: one sample every N events (0: by frequency)
  std::string target;          // "command", "pid 12,34" (attach) or "system" (-a)
  // Spans the program marked but strobe did not get: its span buffer was
  // full, they nested too deep, or no buffer was free for their thread.
  uint64_t dropped_spans = 0;
  // record --off-cpu: off-CPU intervals were recorded (kOffCpu samples);
  // those shorter than off_cpu_min_ns were not, but counted here; switch
  // records the kernel dropped (LOST records of the switch rings), and
  // switches whose other half was lost (their interval is unknown).
  uint32_t off_cpu = 0;  // 1 when recorded with --off-cpu
  uint64_t off_cpu_min_ns = 0;
  uint64_t off_cpu_short_count = 0;
  uint64_t off_cpu_short_ns = 0;
  uint64_t switch_records_lost = 0;
  uint64_t switch_unpaired = 0;
  // 1: written while recording (store::RecordingStream) and never finished:
  // the recorder was killed, or could not write the finished recording. Its
  // samples may end early and its frames are not symbolized.
  uint32_t incomplete = 0;
  // Why sampling stopped before the session's end ("" when it did not),
  // e.g. libstrobe's timer engine displaced by the program's own SIGPROF
  // handler. Samples after that are missing.
  std::string stopped_reason;
  // What the recording was made from when strobe did not record it ("" when
  // it did): `strobe import` of a perf.data says "perf.data (perf VERSION):
  // PERF COMMAND LINE".
  std::string source;
  // The recording machine's CPU, e.g. "AMD EPYC 7B13" ("" when unknown).
  std::string cpu;
};

class Profile {
 public:
  Profile();

  StringId internString(std::string_view s);
  ModuleId internModule(std::string_view path, std::string_view build_id);
  FunctionId internFunction(std::string_view name, std::string_view system_name,
                            std::string_view file, uint32_t start_line);
  // The function `id` counts as: one id shared by functions that differ
  // only by a clone suffix of their system name (foo, foo.part.0,
  // foo.isra.0, foo.cold: same name, file and start line), the first one
  // interned. Every aggregation keys functions by it.
  FunctionId identity(FunctionId id) const {
    return id < identities_.size() ? identities_[id] : id;
  }
  // Identity is (module, offset) within a module; (kNone, address) outside.
  LocationId internLocation(ModuleId module, uint64_t offset, uint64_t address);
  StackId internStack(StackId parent, LocationId location);
  // Sizes the stack tables for `n` nodes in all (a hint, as vector::reserve).
  void reserveStacks(size_t n);
  void addSample(const Sample& s) { samples_.push_back(s); }
  // Keeps the stack nodes marked in `keep` (indexed by StackId; a kept
  // node's parents must be kept too), renumbered in their order, and
  // rewrites the samples' stacks. Returns the old id -> new id map (kNone:
  // dropped). Samples must not use a dropped node. model/compact.hpp
  // decides what to keep.
  std::vector<StackId> keepStacks(const std::vector<bool>& keep);

  // Adds or updates (by tid) a thread.
  void setThread(Thread t);
  // The code of a sampled function (model/code.hpp says which).
  void addCode(FunctionCode c) { code_.push_back(std::move(c)); }
  void addSpan(const Span& s) { spans_.push_back(s); }

  const std::string& str(StringId id) const { return strings_[id]; }
  const std::vector<std::string>& strings() const { return strings_; }
  const std::vector<Module>& modules() const { return modules_; }
  const std::vector<Function>& functions() const { return functions_; }
  const std::vector<Location>& locations() const { return locations_; }
  std::vector<Location>& mutableLocations() { return locations_; }
  const std::vector<StackNode>& stacks() const { return stacks_; }
  const std::vector<Sample>& samples() const { return samples_; }
  std::vector<Sample>& mutableSamples() { return samples_; }
  const std::vector<Thread>& threads() const { return threads_; }
  const std::vector<Span>& spans() const { return spans_; }
  std::vector<Span>& mutableSpans() { return spans_; }
  const Thread* findThread(int32_t tid) const;
  const std::vector<FunctionCode>& code() const { return code_; }
  std::vector<FunctionCode>& mutableCode() { return code_; }
  Meta& meta() { return meta_; }
  const Meta& meta() const { return meta_; }
  // The view a report selected this profile's samples for (filterSamples
  // sets it); kAuto for a profile as recorded.
  View view() const { return view_; }
  void setView(View v) { view_ = v; }

  // JIT code and anonymous executable memory (see jit_code.hpp).
  // addJitCode places the code in the "[JIT]" module (sets module_offset).
  JitCodeId addJitCode(JitCode code);
  const std::vector<JitCode>& jitCode() const { return jit_code_; }
  std::vector<JitCode>& mutableJitCode() { return jit_code_; }
  // The JitCode whose bytes hold `module_offset` of the "[JIT]" module, or kNone.
  JitCodeId jitCodeAt(uint64_t module_offset) const;
  // Adds anonymous executable memory of `pid`, merged with the regions it
  // overlaps or touches.
  void addAnonRegion(int32_t pid, uint64_t start, uint64_t end);
  const std::vector<AnonRegion>& anonRegions() const { return anon_regions_; }

  // The module's display name: its path's last component ("[anon]" for
  // anonymous memory, "[JIT]" for JIT code), or its whole path when another
  // module of the profile has a different path with the same last component
  // (two programs both called `server`); "[unknown]" for kNone.
  std::string_view moduleName(ModuleId id) const;
  // Walk a stack from leaf to root, calling f(LocationId) for each frame.
  template <typename F>
  void forEachFrame(StackId leaf, F&& f) const {
    for (StackId s = leaf; s != kNone; s = stacks_[s].parent) f(stacks_[s].location);
  }

 private:
  struct LocationKey {
    ModuleId module;
    uint64_t offset;
    bool operator==(const LocationKey&) const = default;
  };
  struct LocationKeyHash {
    size_t operator()(const LocationKey& k) const noexcept {
      return std::hash<uint64_t>{}(k.offset * 0x9E3779B97F4A7C15ULL ^ k.module);
    }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StringId> string_ids_;
  std::vector<Module> modules_;
  std::unordered_map<uint64_t, ModuleId> module_ids_;            // (path id << 32 | build id)
  std::unordered_map<std::string, StringId> path_of_base_name_;  // the first path seen
  std::vector<bool> module_shows_path_;                          // by module: its name collides
  std::vector<Function> functions_;
  std::unordered_map<std::string, FunctionId> function_ids_;
  std::vector<FunctionId> identities_;                        // by function
  std::unordered_map<std::string, FunctionId> identity_ids_;  // by key without clone suffix
  std::vector<Location> locations_;
  std::unordered_map<LocationKey, LocationId, LocationKeyHash> location_ids_;
  // Stack nodes are the profile's most numerous interned items (hundreds of
  // thousands in a long recording): they are found through an open-addressing
  // table of node ids (kNone: empty slot), probed linearly, at most half full.
  void growStackIndex(size_t min_slots);
  std::vector<StackNode> stacks_;
  std::vector<StackId> stack_index_;  // size: 0 or a power of two
  std::vector<Sample> samples_;
  std::vector<Thread> threads_;
  std::unordered_map<int32_t, size_t> thread_index_;
  std::vector<JitCode> jit_code_;  // by module_offset, as added
  uint64_t jit_module_size_ = 0;   // where the next JitCode goes in "[JIT]"
  std::vector<AnonRegion> anon_regions_;
  std::vector<FunctionCode> code_;
  std::vector<Span> spans_;
  Meta meta_;
  View view_ = View::kAuto;
};

}  // namespace strobe::model
