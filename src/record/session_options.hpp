// The options of a recording session and what it reports back: what
// `record`, `top` and `agent` ask of record() (RecordOptions), what a live
// view learns at each tick (TickInfo), and the outcome (RecordOutcome).
// Plain data; see session.hpp for what record() does with them and
// engine.hpp for the capture engines.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/compact.hpp"
#include "model/profile.hpp"
#include "record/converter.hpp"
#include "record/kept_files.hpp"

namespace strobe::record {

enum class AttachMode { kAuto, kInherit, kPerThread, kCpuFiltered };

// The capture engine (engine.hpp): perf events read by the kernel's own
// samplers, or strobe's BPF program on one event per CPU. kAuto: the BPF
// engine where it can record, else the perf engine.
enum class EngineKind : uint8_t { kAuto, kPerf, kBpf };

// What a live view learns at each tick besides the Profile.
struct TickInfo {
  uint64_t elapsed_ns = 0;  // since the session started (sample times are relative to its start)
  const ConverterStats* stats = nullptr;  // samples, lost, ... so far
  const KeptFiles* kept_files = nullptr;  // the mapped files held open so far (for symbolizing)
  // --off-cpu: threads off CPU right now, as off-CPU samples clipped at the
  // time the Profile is complete to (not in the Profile: their end is not
  // known yet).
  std::vector<model::Sample> open_off_cpu;
  // Drops the samples before a time (since the start) and the stacks no
  // one needs any more, keeping the converter's stacks consistent
  // (model/compact.hpp), and the address spaces of processes that exited
  // before then: for views that run for days (strobe agent).
  std::function<model::Compaction(uint64_t before_ns)> compact;
};

// --off-cpu-min's default: off-CPU intervals shorter than this are counted,
// not stored (docs/BENCHMARKS.md, "Off-CPU time", has the measurement).
inline constexpr uint64_t kDefaultOffCpuMinNs = 100'000;

struct RecordOptions {
  std::vector<std::string> command;  // launch: argv; command[0] is looked up in PATH
  std::vector<pid_t> pids;           // attach: the target processes
  bool system_wide = false;          // -a
  uint32_t frequency = 99;           // Hz of CPU time, per thread (when period == 0)
  bool callchain = true;             // -g fp (true) or -g none
  size_t mmap_pages = 128;           // data pages per CPU ring, a power of two
  // -g dwarf / auto: also sample the user registers and this many bytes of
  // user stack (a multiple of 8, at most 65528) and unwind them with CFI as
  // the rings drain; 0 = off. The kernel's fp chain (callchain) is spliced in
  // where the CFI walk ends early.
  uint32_t stack_copy_bytes = 0;
  bool unwind_auto = false;         // -g auto: fp steps in modules that keep frame pointers
  std::string event = "cpu-clock";  // -e
  uint64_t period = 0;              // -c: one sample every N events
  bool kernel = false;              // -k: kernel samples and callchains too
  bool inherit = true;              // launch: follow threads and children
  uint64_t duration_ns = 0;         // -d; 0 = until the targets end or a signal
  AttachMode attach_mode = AttachMode::kAuto;  // tests force one with STROBE_ATTACH_MODE
  EngineKind engine = EngineKind::kPerf;       // --engine
  // Spans and roles of processes linked with libstrobe (span_receiver.hpp):
  // a launched command is told where to send them, attached processes are
  // read through /proc/PID/fd.
  bool spans = false;
  // Live views (strobe agent): thread roles reach the Profile while it is
  // recorded, not at the end, and spans are not kept; system-wide, the
  // channels of the processes sampled are looked for as they run
  // (span_receiver.hpp, discover()).
  bool live_roles = false;
  // --off-cpu: also record each interval a thread spends off CPU (needs a
  // time event and call stacks); shorter ones than off_cpu_min_ns are
  // counted only.
  bool off_cpu = false;
  uint64_t off_cpu_min_ns = kDefaultOffCpuMinNs;
  // Live views: called every tick_ns (> 0) while recording; false stops.
  std::function<bool(model::Profile&, const TickInfo&)> on_tick;
  uint64_t tick_ns = 0;
};

struct RingStats {
  int cpu = -1;    // -1 for a per-thread ring
  pid_t tid = -1;  // -1 for a per-CPU ring
  uint64_t samples = 0;
  uint64_t lost = 0;
  // Drain passes that met a corrupt record header and dropped the rest of
  // what the ring held then (perf::RingBuffer::corruptCount).
  uint64_t corrupt = 0;
  bool off_cpu = false;  // the off-CPU event's ring (samples: switch-outs)
};

struct RecordOutcome {
  int exit_status = 0;          // launch: as a shell reports it (128+N for signal N); else 0
  uint64_t command_ns = 0;      // launch: from its exec to its exit (0: it did not exit)
  size_t descendants_left = 0;  // launch: processes it started, still running at the end
  ConverterStats stats;
  uint64_t malformed_records = 0;
  std::vector<RingStats> rings;                // every ring the session had
  AttachMode attach_mode = AttachMode::kAuto;  // what an attach used
  EngineKind engine = EngineKind::kPerf;       // the engine that recorded
  size_t events_opened = 0;
  // Problems met while recording that did not stop it (one line each), e.g.
  // threads a rescan could not cover.
  std::vector<std::string> warnings;
  // The mapped files held open while recording (see kept_files.hpp), for the
  // symbolizer; never null after a successful record().
  std::unique_ptr<KeptFiles> kept_files;
};

}  // namespace strobe::record
