// strobe's BPF program (strobe.bpf.c) as strobe loads and drives it: a
// libbpf skeleton configured before loading (what each sample reads), the
// sampler attached to perf events the caller opened (one per CPU), the
// scheduler tracepoints it needs (process fork, exec and exit to follow
// the targets; sched_switch with --off-cpu), the targets map, the CPython
// processes whose Python frames it reads, the ring buffer of records and
// the per-CPU counters.
//
// checkAvailable() says why BPF cannot be used here before anything is
// loaded: no BTF, missing capabilities, a seccomp filter, a kernel that
// refuses the program type. Messages are stable (tests compare them).
//
// Owns: the skeleton (its maps and programs), its links and the ring
// buffer reader; all are released by the destructor.
// Thread safety: one thread. Not async-signal-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "bpf/sample_record.h"

namespace strobe::bpf {

struct ProgramConfig {
  bool filter = true;               // keep only the targets' samples (false: -a)
  bool kernel_stack = false;        // -k
  bool user_stack = true;           // the kernel's frame-pointer walk of the user stack
  bool build_id = false;            // ... as build-id + file offset frames
  uint32_t stack_bytes = 0;         // -g dwarf/auto: user stack bytes copied per sample
  uint32_t switch_stack_bytes = 0;  // --off-cpu: the same at each switch-out
  bool off_cpu = false;             // attach sched_switch
  size_t ring_bytes = 4 << 20;      // a power of two pages
  uint32_t max_targets = 65536;     // processes followed at once
};

// The program's counters, summed over CPUs (STROBE_CTR_*).
struct Counters {
  uint64_t lost_samples = 0;
  uint64_t lost_switches = 0;
  uint64_t filtered = 0;
};

// Ok when this process may load and attach strobe's program: the kernel
// has BTF, the process has CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN), and
// the kernel loads a perf_event program for it. kUnsupported (no BTF, the
// program type missing) or kPermission (capabilities, seccomp) otherwise.
Status checkAvailable();

class Program {
 public:
  static Result<std::unique_ptr<Program>> load(const ProgramConfig& config);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Follows process `tgid` (and the processes it forks from now on);
  // `held`: a launched command not yet exec'ed, followed from its exec.
  Status addTarget(pid_t tgid, bool held);
  // Reads the Python frames of process `tgid`'s threads at each sample
  // from now on, with `layout` (its interpreter's); forgetPython stops it
  // (the process is gone, or its image was replaced).
  Status setPython(pid_t tgid, const strobe_python_proc& layout);
  void forgetPython(pid_t tgid);
  // Runs the sampler at each sample of the perf event `perf_fd` (and
  // enables it). The caller keeps the event open while attached.
  Status attachSampler(int perf_fd);
  // The process tracepoints (and sched_switch with config.off_cpu).
  Status attachTracepoints();
  // Detaches every program: nothing is written into the ring after it
  // returns (what is there can still be drained).
  void detach();

  // Readable when records wait (poll()).
  [[nodiscard]] int pollFd() const;
  // Hands every waiting record to sink(const uint8_t* bytes, size_t size,
  // void* arg); returns how many.
  size_t drain(void (*sink)(const uint8_t*, size_t, void*), void* arg);
  [[nodiscard]] Counters counters() const;

 private:
  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The libbpf messages of the last load (for STROBE_DEBUG).
std::string lastLoadLog();

}  // namespace strobe::bpf
