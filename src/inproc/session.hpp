// The process-wide profiling session behind the C API: at most one runs at a
// time. start() picks an engine (engine.hpp), registers every thread of the
// process and starts the drain thread, which moves samples into a Collector
// when the engine's buffers call for it (perf: a ring half full; timer: at
// most every 100 ms, sooner for small buffers at high rates) and every
// 100 ms rescans /proc/self/task for threads that pthread_create did not
// announce (and for threads that exited). stop() ends
// the session, builds and symbolizes the profile, and keeps it as "the last
// profile" for write/report.
//
// Threads created by libstrobe itself (the drain thread, the HTTP server and
// its workers) are never sampled. After fork() the child has no session
// (pthread_atfork) and may start its own.
// Thread safety: every function here is thread-safe; start/stop/last-profile
// calls are serialized by one mutex, thread registration by another (held
// only briefly, so fork() never waits long). None is async-signal-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/result.hpp"
#include "inproc/engine.hpp"
#include "model/profile.hpp"

namespace strobe::inproc {

Status startSession(const Options& o);
Status stopSession();
bool sessionRunning();

// The profile of the last stopped session (nullptr before the first stop),
// handed to `f` under the session mutex.
Status withLastProfile(const std::function<Status(const model::Profile&)>& f);

// Whether the last session's engine stopped sampling before stopSession()
// (Engine::stoppedReason: the program took SIGPROF over from the timer
// engine): an error saying when, with kStoppedEarlyHint. Its profile is
// kept and holds the samples taken until then.
Status samplingStoppedEarly();
inline constexpr const char* kStoppedEarlyHint =
    "the profile holds the samples taken until then; use the perf engine (STROBE_ENGINE=perf), "
    "or leave SIGPROF to libstrobe while it profiles";

// Engine name of the running or last session ("" if none).
std::string engineName();
// Why `auto` did not pick perf ("" when it did or was not asked).
std::string engineFallbackReason();
uint64_t droppedSamples();
// Samples so far (the running session's, drained now) or of the last one.
uint64_t sampleCount();
// Spans of the running (or last) session that it did not get (see
// channel::ReaderStats::lost).
uint64_t droppedSpans();

// The running session's profile so far, built and symbolized while it
// keeps sampling (the last stopped session's when none runs), handed to
// `f`. Serialized with start/stop.
Status withSnapshot(const std::function<Status(const model::Profile&)>& f);

// A std::thread whose thread (and the threads it creates) is not sampled.
std::thread spawnInternalThread(std::function<void()> fn);

// Called at the start of every thread created through pthread_create (see
// threads.cpp): registers the calling thread with the running session.
void onThreadStart();
// Called as such a thread exits (its return, or pthread_exit): keeps the
// name it has then, which /proc no longer tells once it is gone.
void onThreadExit();
// Whether the calling thread is one of libstrobe's own (inherited by the
// threads it creates); setInternalThreadFlag only sets the flag, for
// onThreadStart() to act on.
bool isInternalThread();
void setInternalThreadFlag(bool internal);
// Marks the calling thread as libstrobe's own (or not) and takes it out of
// the running session.
void setInternalThread(bool internal);

}  // namespace strobe::inproc
