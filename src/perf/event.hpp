// Opening perf events: the event-name table, the perf_event_attr strobe uses,
// the perf_event_open(2) wrapper with errors that say what to change, and the
// enable/disable ioctls. Also the list of online CPUs (one event per CPU).
//
// Owns: nothing long-lived. openEvent() returns an Fd the caller owns (closing
// it destroys the event). One process-wide flag remembers that the running
// kernel rejected attr.build_id (see openEvent).
// Thread safety: all functions are thread-safe (the flag is atomic).
// Async-signal safety: none of these functions are async-signal-safe
// (they allocate for errors and read /proc and /sys).
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/fd.hpp"
#include "base/result.hpp"

namespace strobe::perf {

// What to sample and how often.
struct EventSpec {
  std::string name = "cpu-clock";
  uint32_t frequency = 99;  // samples per second per thread (frequency mode)
  uint64_t period = 0;      // if nonzero: one sample every `period` events instead
  bool callchain = true;    // PERF_SAMPLE_CALLCHAIN (frame-pointer walk by the kernel)
  bool kernel = false;      // also sample kernel space and kernel callchains
  // Sample time spent in the kernel too, without the kernel's callchain
  // (exclude_kernel = 0, exclude_callchain_kernel = 1): such a sample's ip is
  // a kernel address and its callchain the user stack that entered the kernel.
  bool kernel_time = false;
  // -g dwarf / auto: PERF_SAMPLE_REGS_USER with this attr.sample_regs_user
  // (0: not sampled) and PERF_SAMPLE_STACK_USER copying this many bytes of
  // the user stack (0: not sampled; a multiple of 8, at most 65528).
  uint64_t regs_user = 0;
  uint32_t stack_user = 0;
};

// (attr.type, attr.config) for a known event name: cpu-clock, task-clock,
// page-faults, context-switches (software); cycles, instructions,
// cache-misses, branch-misses (hardware). Unknown -> kUsage error.
Result<std::pair<uint32_t, uint64_t>> eventTypeConfig(std::string_view name);

// The name of a (type, config) pair from the table above, or "type:config".
std::string eventName(uint32_t type, uint64_t config);

// attr.type of an attr made from an unknown event name.
inline constexpr uint32_t kNoEventType = UINT32_MAX;

// The attributes strobe samples with. sample_type = IP|TID|TIME|CPU|PERIOD
// (+CALLCHAIN, +REGS_USER, +STACK_USER as the spec asks); frequency mode unless spec.period is set;
// mmap/mmap2/comm/ comm_exec/task side-band records with sample_id_all; CLOCK_MONOTONIC timestamps;
// created disabled; build_id = 1 (openEvent drops it on kernels older than 5.12). wakeup_bytes:
// poll() wakes once that many bytes wait in the ring (watermark mode); 0 lets the kernel pick half
// the ring. An unknown spec.name yields attr.type = kNoEventType, which openEvent refuses with a
// kUsage error; validate names with eventTypeConfig first.
perf_event_attr makeAttr(const EventSpec& spec, bool inherit, bool enable_on_exec,
                         uint32_t wakeup_bytes = 0);

// The attributes of the off-CPU event (record --off-cpu), made from the
// main event's: the software context-switch event sampled at every
// switch-out (sample_period 1), so its callchain is the stack where the
// thread left the CPU (the kernel part with -k only, as for the main event:
// unwinding the kernel at every switch would cost more than the rest), plus
// attr.context_switch for PERF_RECORD_SWITCH records (switch-in times and
// preemption). The same sample_type as `main` (+CALLCHAIN), so one decoder
// reads both rings. The event fires in the kernel, so exclude_kernel is 0:
// it needs perf_event_paranoid <= 1 or CAP_PERFMON (see
// offCpuPermissionError). No side-band records: the main event has those.
perf_event_attr makeOffCpuAttr(const perf_event_attr& main);

// The error for the off-CPU event refused with EACCES/EPERM (paranoid as
// readParanoid gives it). Messages are stable; tests compare them.
Error offCpuPermissionError(int paranoid);

// perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC).
// pid 0 = the calling thread, -1 = every task on `cpu`. If the kernel rejects
// attr.build_id with EINVAL, retries once without it and remembers that for
// later calls (MMAP2 records then carry maj/min/ino instead of a build id).
// Failures are classified by classifyOpenError.
Result<Fd> openEvent(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd = -1);

// Sentinel for "kernel.perf_event_paranoid could not be read".
inline constexpr int kParanoidUnknown = INT_MIN;

// The one-line Error (and hint) for perf_event_open failing with `err`.
// Pure: paranoid, max_sample_rate (0 = unknown) and seccomp_filter (a
// seccomp filter refused the call: openEvent says so when the process runs
// under one and is root or allowed by perf_event_paranoid) are passed in.
// Messages are stable; tests compare them word for word.
Error classifyOpenError(int err, const perf_event_attr& attr, pid_t pid, int paranoid,
                        uint64_t max_sample_rate = 0, bool seccomp_filter = false);

// Whether the calling process runs under a seccomp filter (/proc/self/status
// "Seccomp: 2"), as container runtimes install.
bool underSeccompFilter();

// /proc/sys/kernel/perf_event_paranoid, or kParanoidUnknown.
int readParanoid();

// Whether this process may sample kernel space (root, CAP_PERFMON, or
// kernel.perf_event_paranoid <= 1): opens and closes one counting cpu-clock
// event on itself with exclude_kernel = 0. A refusal is a kPermission Error
// whose message says why ("kernel.perf_event_paranoid is 2, which forbids
// kernel sampling for unprivileged users") and whose hint says what allows
// it; other failures are returned as they are.
Status probeKernelSampling();
// /proc/sys/kernel/perf_event_max_sample_rate, or 0 when unreadable.
uint64_t readMaxSampleRate();

// PERF_EVENT_IOC_ENABLE / PERF_EVENT_IOC_DISABLE on an event fd.
Status enableEvent(int fd);
Status disableEvent(int fd);
// An event's count (read_format 0): for an inherited event, its own and
// every inheriting thread's, exited ones included (ns for cpu-clock).
Result<uint64_t> readCount(int fd);

// A CPU list as in /sys/devices/system/cpu/online: "0-3,5,7-8\n".
Result<std::vector<int>> parseCpuList(std::string_view text);
// The online CPUs; falls back to 0..N-1 (N from sysconf) if /sys is unreadable.
std::vector<int> onlineCpus();
int onlineCpuCount();

}  // namespace strobe::perf
