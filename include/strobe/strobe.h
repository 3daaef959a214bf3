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
 *
 * Spans and roles: strobe_span_begin/strobe_span_end mark intervals of the
 * calling thread (they nest), strobe_thread_role names the thread's job.
 * Whoever profiles the process records them with its samples: a libstrobe
 * session of the process itself, or `strobe record` running or attached to
 * it. While nothing records, a span costs one load and a branch; while
 * something does, a clock read and a store into a per-thread buffer (no
 * lock, no allocation). A full buffer drops spans and counts them; nothing
 * ever waits. These three functions are thread-safe but not
 * async-signal-safe. Define STROBE_DISABLE before including this header to
 * compile the STROBE_* macros (and strobe::Span) to nothing.
 */
#ifndef STROBE_STROBE_H
#define STROBE_STROBE_H

#include <stddef.h>
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

/* Always fill with strobe_options_init() first: fields are added at the end. */
typedef struct strobe_options {
  uint32_t frequency; /* samples per second per thread; default 99 */
  strobe_mode mode;   /* default STROBE_MODE_CPU */
  uint32_t max_depth; /* frames kept per sample; default 64, at most 256 */
  /* Timer engine: the per-thread buffer, in samples (2 to 1048576); default
   * 0: sized from the rate, to hold 250 ms of samples (docs/LIBSTROBE.md
   * gives the memory per thread). */
  uint32_t buffer_samples;
  strobe_engine engine; /* default STROBE_ENGINE_AUTO */
  /* The sampled event, as `strobe record -e`: "cpu-clock" (NULL: the
   * default) or "task-clock" with either engine; others ("page-faults",
   * "cycles", ... where the machine has them) with the perf engine only. */
  const char* event;
  int kernel; /* 1: kernel frames too, as `strobe record -k` (perf engine) */
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
 * `strobe report --format` accepts, or "db": the native recording that
 * `strobe report`, `strobe query` and every format read; NULL: from the file
 * extension (.db is a recording), else text). */
STROBE_API int strobe_write(const char* path, const char* format);

/* Like strobe_write, for the running session: writes what was sampled so
 * far and keeps sampling (the last profile when none runs). */
STROBE_API int strobe_snapshot(const char* path, const char* format);

/* The last profile in `format` (as strobe_write; NULL: text) into a buffer
 * the caller frees with free(): *data, *size bytes. */
STROBE_API int strobe_write_mem(const char* format, void** data, size_t* size);

/* The last profile in `format` (NULL: text) written to `out` (not closed). */
STROBE_API int strobe_write_file(FILE* out, const char* format);

/* Prints the text report of the last profile to `out`. */
STROBE_API int strobe_report(FILE* out);

/* "perf" or "timer": the engine of the running or last session ("" if none). */
STROBE_API const char* strobe_engine_name(void);

/* Why the running or last session did not use the perf engine although
 * STROBE_ENGINE_AUTO asked for it first: the perf engine's error, one line,
 * e.g. "perf_event_open is blocked by a seccomp filter (in a container?),
 * ..." ("" when perf was used, or not tried: timer engine or wall mode
 * asked for). */
STROBE_API const char* strobe_engine_fallback_reason(void);

/* Samples of the last (or running) session dropped because a per-thread
 * buffer was full or the kernel lost them. */
STROBE_API uint64_t strobe_dropped_samples(void);

/* Samples of the running session so far, or kept in the last profile. */
STROBE_API uint64_t strobe_sample_count(void);

/* The last error on this thread ("" when none). */
STROBE_API const char* strobe_last_error(void);

/* Serves GET /debug/pprof/profile?seconds=N (a pprof profile of the next N
 * seconds, N <= 3600, one at a time) on "HOST:PORT" in a background thread.
 * HOST defaults to 127.0.0.1 when `addr` is ":PORT". Port 0 picks a free
 * port; strobe_http_port() tells which. */
STROBE_API int strobe_serve_http(const char* addr);
STROBE_API int strobe_http_port(void);

/* A span named `name` begins on the calling thread; spans nest. `name` must
 * outlive the process (a string literal): it is interned by address. */
STROBE_API void strobe_span_begin(const char* name);
/* The calling thread's innermost open span ends. */
STROBE_API void strobe_span_end(void);
/* The calling thread's role in the program: ("worker", 3) shows as
 * "worker 3"; index < 0 for none ("dispatcher"). At most 63 bytes kept. */
STROBE_API void strobe_thread_role(const char* role, int index);
/* Spans of the running (or last) session it did not record: a thread's
 * buffer was full, they nested deeper than 64, or no buffer was free. */
STROBE_API uint64_t strobe_dropped_spans(void);

#ifdef STROBE_DISABLE
#define STROBE_SPAN_BEGIN(name) ((void)0)
#define STROBE_SPAN_END() ((void)0)
#define STROBE_THREAD_ROLE(role, index) ((void)0)
#else
#define STROBE_SPAN_BEGIN(name) strobe_span_begin(name)
#define STROBE_SPAN_END() strobe_span_end()
#define STROBE_THREAD_ROLE(role, index) strobe_thread_role((role), (index))
#endif

/* JIT code: a JIT that generates machine code names it for profilers.
 * Register each function once its code is in place (before it runs), and
 * unregister it before its memory is freed or reused; registering again at
 * the same start replaces the function there. Names are copied. Frames in
 * registered code are named in strobe's reports as module "[JIT]" by the
 * function that was registered at the sampled address at the sample's time,
 * so memory reused for another function is named right in both phases.
 *
 * Library sessions (strobe_start ... strobe_stop) see registrations at once.
 * A profiler outside the process (strobe record/top, perf) sees them when
 * the environment variable STROBE_JITDUMP names a directory: each
 * registration is then also appended to DIR/jit-PID.dump, a standard
 * jitdump file (perf record -k 1 + perf inject --jit read it too).
 * strobe record/top -- CMD set STROBE_JITDUMP for the command (to a private
 * directory they remove afterwards) unless it is set already.
 * Cost: about a hash-map update per call; with STROBE_JITDUMP, one write(2)
 * with the code's bytes (docs/BENCHMARKS.md). Invalid arguments (NULL name or
 * start, size 0) are ignored. Thread-safe; not async-signal-safe. */
typedef struct strobe_jit_line {
  const void* pc;   /* first address (inside the function) of this line's code */
  const char* file; /* source file (copied) */
  uint32_t line;    /* 1-based line number */
} strobe_jit_line;

STROBE_API void strobe_jit_register(const char* name, const void* start, size_t size);
/* Optional: the source lines of the registered function at `start`, as rows
 * sorted or not; code from a row's pc up to the next row's is that row's
 * line. Rows outside the function are ignored. Replaces earlier rows. */
STROBE_API void strobe_jit_register_lines(const void* start, const strobe_jit_line* lines,
                                          size_t n);
STROBE_API void strobe_jit_unregister(const void* start);

#ifdef __cplusplus
}
#endif

#endif /* STROBE_STROBE_H */
