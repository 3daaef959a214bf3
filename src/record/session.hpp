// Recording sessions: launch a command (`record -- CMD`), attach to running
// processes (`-p`/`-P`), or sample the whole system (`-a`). record() opens
// the events, drains their rings into the model until the session ends, and
// fills the Profile's samples, stacks, threads and meta. Symbolization and
// storage are the caller's.
//
// A session is one capture engine (engine.hpp: the perf engine,
// perf_engine.hpp, or the BPF engine) and the drain loop, which is the
// same for every engine: each pass drains the engine's buffers into an
// EventQueue, applies what is older than the reorder slack to the one
// Converter (in time order across buffers), follows JIT files and span
// channels, calls a live view's tick, and watches the targets' end
// (command_watch.hpp for a launched command). How each engine covers
// threads is in its header.
// Existing mappings and thread names of attached (or, for -a, all)
// processes are synthesized from /proc before the first sample is applied.
//
// Ending: the command and every process it started exited (launch: strobe
// is their subreaper while recording, so descendants whose parent exited
// first are followed to their end and their CPU counted; with --no-inherit
// the command alone); every target exited (attach); the duration elapsed
// (launch: the command then gets SIGTERM, and SIGKILL if it has not exited
// kKillGraceNs later; the recording ends when it is gone);
// SIGINT/SIGTERM/SIGHUP/SIGQUIT to strobe (launch: forwarded to the
// command while it runs, whose exit ends the session; otherwise they stop
// recording). Descendants still running when a launch's recording stops are
// left alone and counted (RecordOutcome::descendants_left). The previous
// signal handlers are restored on return. The soft RLIMIT_NOFILE is raised
// to the hard limit (and left there).
// Live views (`top`): RecordOptions::on_tick is called from the drain loop
// every tick_ns, on the recording thread, with the Profile so far (records
// are applied up to the reorder slack, ~20 ms, behind) which it may
// symbolize in place; returning false ends the session as the end of -d
// would (launch: the command gets SIGTERM and is waited for). A view may
// compact the Profile from its tick (TickInfo::compact).
// Thread safety: one session at a time per process (signal handlers).
#pragma once

#include "base/result.hpp"
#include "model/profile.hpp"
#include "record/session_options.hpp"

namespace strobe::record {

// "inherit", "per-thread", "cpu-filtered", "auto".
const char* attachModeName(AttachMode m);

// Errors: kNotFound when the command or a pid does not exist, kPermission
// when perf_event_open is refused, kUnsupported for an event the machine
// lacks, kUsage for bad options.
Result<RecordOutcome> record(const RecordOptions& opt, model::Profile& profile);

// The launch case of record() (opt.command must be set).
inline Result<RecordOutcome> recordCommand(const RecordOptions& opt, model::Profile& profile) {
  return record(opt, profile);
}

}  // namespace strobe::record
