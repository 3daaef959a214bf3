// Capture engines: what turns a target's execution into records for the
// converter. A session (session.hpp) owns one engine and the drain loop;
// the engine owns the kernel objects (perf events, rings, BPF programs and
// maps) and nothing above them.
//
// The contract, in the order a session calls it:
//   open(targets)  creates every kernel object; nothing reaches the
//                  Profile yet. A launched command is held before its exec
//                  (targets.command): the engine must sample it from its
//                  exec on and never before (strobe's own pre-exec code).
//   configure(c)   sets the converter's engine-specific options.
//   start()        sampling runs from here on (attached and system-wide
//                  targets; a launched command from its exec). The session
//                  reads /proc (existing mappings) after start(), so that a
//                  mapping made in between is in a record.
//   drain(q)       copies every record the engine's buffers hold into the
//                  queue, tagged with the engine's own source numbers. Never
//                  blocks. Called at least every kPollTimeoutMs.
//   apply(...)     hands one queued record (in time order across every
//                  buffer) to the converter; only the engine knows its
//                  sources and formats.
//   afterPass()    housekeeping after each pass (close buffers of exited
//                  threads, rescans); may add warnings.
//   pollFds()      descriptors that become readable when records wait, and
//                  polled() their results (POLLHUP: a task is gone).
//   stop()         no record is produced after it returns (the session then
//                  drains once more and flushes everything).
//   finish(out)    the engine's figures: rings, events opened, attach mode,
//                  the CPU no sample covers where it can tell.
// What an engine cannot do is said before one is made: EngineInfo::check()
// refuses the options it lacks and the machines that refuse it, with the
// error a user sees; makeEngine() picks by RecordOptions::engine.
//
// Thread safety: an engine is used by one thread (the session's).
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "perf/records.hpp"
#include "record/converter.hpp"
#include "record/event_queue.hpp"
#include "record/session_options.hpp"

namespace strobe::record {

// -g auto: user stack bytes each engine copies at a switch-out (off-CPU):
// the libc frames of a blocking call fit in a few hundred bytes.
inline constexpr uint32_t kOffCpuStackCopy = 1024;

// What a session covers (exactly one of command, pids, system_wide), and
// what the session decided about the kernel.
struct EngineTargets {
  pid_t command = -1;       // launch: the held child, exec'ed after start()
  std::vector<pid_t> pids;  // attach: running processes (they exist)
  bool system_wide = false;
  // Without -k: sample time in the kernel too, on the user stack that
  // entered it (false where the kernel forbids kernel sampling).
  bool kernel_time = false;
};

class CaptureEngine {
 public:
  virtual ~CaptureEngine() = default;

  virtual Status open(const EngineTargets& targets) = 0;
  // The queue its records go through (perf records are decoded with the
  // engine's sample_type).
  virtual std::unique_ptr<EventQueue> makeQueue() const = 0;
  virtual void configure(Converter& c) = 0;
  virtual Status start() = 0;
  virtual void drain(EventQueue& q) = 0;
  // A perf record, and a record in the engine's own format (EventQueue::pushRaw).
  virtual void apply(const perf::Record& r, uint8_t source, Converter& c) = 0;
  virtual void applyRaw(const uint8_t* bytes, size_t size, uint8_t source, Converter& c) {
    (void)bytes, (void)size, (void)source, (void)c;
  }
  virtual void afterPass(uint64_t now_ns, std::vector<std::string>& warnings) = 0;
  virtual void pollFds(std::vector<pollfd>& fds) const = 0;
  // `fds` points at the entries pollFds() appended, after poll().
  virtual void polled(const pollfd* fds, size_t n) = 0;
  virtual void stop() = 0;
  virtual void finish(ConverterStats& stats, RecordOutcome& out,
                      std::vector<std::string>& warnings) = 0;
};

struct EngineInfo {
  EngineKind kind;
  const char* name;  // "perf", "bpf"
  // Ok when the engine can record with `opt` on this machine; otherwise the
  // error (one line and a hint) that says why not.
  Status (*check)(const RecordOptions& opt);
  std::unique_ptr<CaptureEngine> (*make)(const RecordOptions& opt);
};

const EngineInfo& perfEngineInfo();

// The engine that records with `opt`: the one opt.engine names, which must
// be able to (else its EngineInfo::check() error); for kAuto the first of
// the engines that can, in order of preference, with `note` saying why an
// earlier one could not ("" when the first could).
Result<const EngineInfo*> chooseEngine(const RecordOptions& opt, std::string& note);

// chooseEngine's engine, made; its note (if any) goes to `notes`.
Result<std::unique_ptr<CaptureEngine>> makeEngine(const RecordOptions& opt, EngineKind& chosen,
                                                  std::vector<std::string>& notes);

// "perf", "bpf", "auto".
const char* engineName(EngineKind k);

}  // namespace strobe::record
