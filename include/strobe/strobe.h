/* libstrobe: profile a process from inside it.
 *
 * One profiling session per process at a time: strobe_start() begins
 * sampling every thread of the process (those that exist and those created
 * later), strobe_stop() ends it and keeps the result, which strobe_write()
 * and strobe_report() then turn into a file or a text report. The result of
 * the last stopped session stays available until the next strobe_start().
 *
 * Engines: "perf" opens one perf_event per thread on the process itself; the
 * kernel writes each sample into a per-thread ring that a background thread
 * drains, so no signal handler runs in the program. "timer" (the fallback
 * when perf_event_open is refused, and the only engine for wall mode) arms a
 * per-thread POSIX timer (timer_create with SIGEV_THREAD_ID on the thread's
 * CPU clock, or CLOCK_MONOTONIC in wall mode) whose SIGPROF handler walks
 * frame pointers into preallocated per-thread buffers. "auto" tries perf,
 * then timer; strobe_engine_name() says which one runs.
 *
 * Thread safety: every function may be called from any thread; calls are
 * serialized internally. None is async-signal-safe. Strings returned are
 * owned by libstrobe and valid until the next call on the same thread.
 * Errors: functions returning int return 0 on success and -1 on failure,
 * with strobe_last_error() describing it (one line, then "  hint: ..." when
 * there is something to do about it).
 *
 * Coexistence: the timer engine needs SIGPROF; if the program already has a
 * SIGPROF handler, strobe_start() fails with an error saying so. The
 * previous disposition is restored on stop. If the program installs its own
 * SIGPROF handler while the timer engine runs, the engine notices (within
 * 100 ms, or at the latest at stop), stops sampling and leaves the
 * program's handler in place; strobe_stop() then returns -1 with an error
 * saying when, and the profile (the samples until then) is still kept for
 * strobe_write() and strobe_report(). After fork(), the child does not
 * profile (strobe_start() may be called again in it).
 */
#ifndef STROBE_STROBE_H
#define STROBE_STROBE_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STROBE_API __attribute__((visibility("default")))

typedef enum strobe_mode {
  STROBE_MODE_CPU = 0,  /* samples time spent running on a CPU */
  STROBE_MODE_WALL = 1, /* samples every thread at a fixed wall-clock rate */
} strobe_mode;

typedef enum strobe_engine {
  STROBE_ENGINE_AUTO = 0,  /* perf, then timer */
  STROBE_ENGINE_PERF = 1,  /* perf_event self-profiling (cpu mode only) */
  STROBE_ENGINE_TIMER = 2, /* per-thread POSIX timers and a SIGPROF handler */
} strobe_engine;

typedef struct strobe_options {
  uint32_t frequency;      /* samples per second per thread; default 99 */
  strobe_mode mode;        /* default STROBE_MODE_CPU */
  uint32_t max_depth;      /* frames kept per sample; default 64, at most 256 */
  uint32_t buffer_samples; /* per-thread buffer, in samples; default 1024 */
  strobe_engine engine;    /* default STROBE_ENGINE_AUTO */
} strobe_options;

/* Fills *opt with the defaults. */
STROBE_API void strobe_options_init(strobe_options* opt);

/* Starts a session (opt NULL: defaults). Fails if one is running. */
STROBE_API int strobe_start(const strobe_options* opt);

/* Stops the running session and keeps its profile (symbolized). */
STROBE_API int strobe_stop(void);

/* 1 while a session runs, else 0. */
STROBE_API int strobe_running(void);

/* Writes the last profile to `path` in `format` ("text", "pprof", ... as
 * `strobe report --format` accepts; NULL: from the file extension, else text). */
STROBE_API int strobe_write(const char* path, const char* format);

/* Prints the text report of the last profile to `out`. */
STROBE_API int strobe_report(FILE* out);

/* "perf" or "timer": the engine of the running or last session ("" if none). */
STROBE_API const char* strobe_engine_name(void);

/* Samples of the last (or running) session dropped because a per-thread
 * buffer was full or the kernel lost them. */
STROBE_API uint64_t strobe_dropped_samples(void);

/* Samples kept in the last profile. */
STROBE_API uint64_t strobe_sample_count(void);

/* The last error on this thread ("" when none). */
STROBE_API const char* strobe_last_error(void);

/* Serves GET /debug/pprof/profile?seconds=N (a pprof profile of the next N
 * seconds, N <= 3600, one at a time) on "HOST:PORT" in a background thread.
 * HOST defaults to 127.0.0.1 when `addr` is ":PORT". Port 0 picks a free
 * port; strobe_http_port() tells which. */
STROBE_API int strobe_serve_http(const char* addr);
STROBE_API int strobe_http_port(void);

#ifdef __cplusplus
}
#endif

#endif /* STROBE_STROBE_H */
