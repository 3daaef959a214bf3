#include "perf/event.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <ctime>

#include "perf/proc_file.hpp"

namespace strobe::perf {
namespace {

struct KnownEvent {
  std::string_view name;
  uint32_t type;
  uint64_t config;
};

constexpr std::array<KnownEvent, 8> kEvents = {{
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
}};

std::string knownEventList() {
  std::string s;
  for (const KnownEvent& e : kEvents) {
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s;
}

// Set once the running kernel refused attr.build_id (older than 5.12).
std::atomic<bool> g_build_id_rejected{false};

bool isHardwareType(uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

std::string targetText(pid_t pid) {
  if (pid == -1) return "all tasks";
  if (pid == 0) return "the calling thread";
  return "pid " + std::to_string(pid);
}

Error permissionError(const perf_event_attr& attr, pid_t pid, int paranoid, bool seccomp_filter) {
  // (seccomp_filter: a seccomp filter, not perf_event_paranoid, refused it.)
  const auto kind = ErrorKind::kPermission;
  if (paranoid == kParanoidUnknown) {
    return makeError("perf_event_open refused, and kernel.perf_event_paranoid is unreadable",
                     "run as root or grant CAP_PERFMON", kind);
  }
  if (seccomp_filter) {
    return makeError("perf_event_open is blocked by a seccomp filter (in a container?)",
                     "allow perf_event_open in the container's seccomp profile (docker run "
                     "--security-opt seccomp=PROFILE), or run outside the container",
                     kind);
  }
  const std::string prefix =
      "perf_event_open refused: kernel.perf_event_paranoid is " + std::to_string(paranoid);
  const bool kernel = attr.exclude_kernel == 0;
  if (pid == -1 && paranoid >= 1) {
    return makeError(prefix + ", which forbids CPU-wide profiling for unprivileged users",
                     "run: sudo sysctl kernel.perf_event_paranoid=0 (or grant CAP_PERFMON)", kind);
  }
  if (paranoid >= 3) {
    // Debian's level 3 forbids every unprivileged perf_event_open; 2 is
    // enough for user space, 1 for kernel sampling.
    return makeError(prefix + ", which forbids profiling for unprivileged users",
                     std::string("run: sudo sysctl kernel.perf_event_paranoid=") +
                         (kernel ? "1" : "2") + " (or grant CAP_PERFMON)",
                     kind);
  }
  if (paranoid >= 2 && kernel) {
    return makeError(prefix + ", which forbids kernel sampling for unprivileged users",
                     "run: sudo sysctl kernel.perf_event_paranoid=1 (or grant CAP_PERFMON), "
                     "or drop -k/--kernel",
                     kind);
  }
  if (pid > 0) {
    // perf_event_open checks ptrace read access to the target.
    return makeError("perf_event_open refused for pid " + std::to_string(pid) +
                         ": no permission to profile it (another user's process?)",
                     "run strobe as that process's user, or grant CAP_SYS_PTRACE (e.g. sudo)",
                     kind);
  }
  return makeError("perf_event_open refused although kernel.perf_event_paranoid is " +
                       std::to_string(paranoid) +
                       " (a seccomp filter or security module, e.g. in a container?)",
                   "allow perf_event_open for this container (docker run --cap-add PERFMON or "
                   "a seccomp profile that permits it), or run as root",
                   kind);
}

}  // namespace

Result<std::pair<uint32_t, uint64_t>> eventTypeConfig(std::string_view name) {
  for (const KnownEvent& e : kEvents) {
    if (e.name == name) return std::pair<uint32_t, uint64_t>{e.type, e.config};
  }
  return makeError("unknown event '" + std::string(name) + "'", "known events: " + knownEventList(),
                   ErrorKind::kUsage);
}

std::string eventName(uint32_t type, uint64_t config) {
  for (const KnownEvent& e : kEvents) {
    if (e.type == type && e.config == config) return std::string(e.name);
  }
  return std::to_string(type) + ":" + std::to_string(config);
}

perf_event_attr makeAttr(const EventSpec& spec, bool inherit, bool enable_on_exec,
                         uint32_t wakeup_bytes) {
  perf_event_attr a{};
  a.size = sizeof a;
  if (auto tc = eventTypeConfig(spec.name); tc.ok()) {
    a.type = tc->first;
    a.config = tc->second;
  } else {
    a.type = kNoEventType;
  }
  a.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  if (spec.callchain) a.sample_type |= PERF_SAMPLE_CALLCHAIN;
  if (spec.regs_user != 0) {
    a.sample_type |= PERF_SAMPLE_REGS_USER;
    a.sample_regs_user = spec.regs_user;
  }
  if (spec.stack_user != 0) {
    a.sample_type |= PERF_SAMPLE_STACK_USER;
    a.sample_stack_user = spec.stack_user;
  }
  if (spec.period != 0) {
    a.sample_period = spec.period;
  } else {
    a.freq = 1;
    a.sample_freq = spec.frequency;
  }
  a.disabled = 1;
  a.inherit = inherit ? 1 : 0;
  // Never inherit_stat: the kernel then writes a READ record for each of an
  // exiting thread's per-CPU events from the CPU the thread exits on, also
  // into the other CPUs' rings, racing their own writers; a ring's
  // data_head can then stop moving while the kernel drops every later
  // record of that CPU, with no LOST record until the race is undone
  // (docs/USAGE.md, "Short-lived threads"). The CPU no sample covers is
  // known from the events' counts instead (readCount).
  a.enable_on_exec = enable_on_exec ? 1 : 0;
  a.exclude_kernel = spec.kernel || spec.kernel_time ? 0 : 1;
  a.exclude_callchain_kernel = spec.kernel ? 0 : 1;
  a.exclude_hv = 1;
  a.mmap = 1;
  a.mmap2 = 1;
  a.comm = 1;
  a.comm_exec = 1;
  a.task = 1;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.watermark = 1;
  a.wakeup_watermark = wakeup_bytes;  // 0: the kernel uses half the ring
  a.build_id = 1;
  return a;
}

perf_event_attr makeOffCpuAttr(const perf_event_attr& main) {
  perf_event_attr a = main;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  a.freq = 0;
  a.sample_period = 1;
  a.sample_type |= PERF_SAMPLE_CALLCHAIN;
  // The event counts in the scheduler, in kernel mode: excluding the kernel
  // would exclude every switch. Its kernel callchain (the scheduler's own
  // stack) is kept as the main event's is: with -k only.
  a.exclude_kernel = 0;
  a.context_switch = 1;
  a.mmap = 0;
  a.mmap2 = 0;
  a.comm = 0;
  a.comm_exec = 0;
  a.task = 0;
  a.build_id = 0;
  return a;
}

Error offCpuPermissionError(int paranoid) {
  std::string why = paranoid == kParanoidUnknown
                        ? std::string("kernel.perf_event_paranoid is unreadable")
                        : "kernel.perf_event_paranoid is " + std::to_string(paranoid);
  return makeError("--off-cpu needs the context-switch event, which counts in the kernel, and " +
                       why + ", which forbids that for unprivileged users",
                   "run: sudo sysctl kernel.perf_event_paranoid=1 (or grant CAP_PERFMON), "
                   "or record without --off-cpu",
                   ErrorKind::kPermission);
}

Result<Fd> openEvent(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd) {
  if (attr.type == kNoEventType) {
    return makeError("perf event attributes name no event (an unknown event name?)",
                     "known events: " + knownEventList(), ErrorKind::kUsage);
  }
  perf_event_attr a = attr;
  if (g_build_id_rejected.load(std::memory_order_relaxed)) a.build_id = 0;
  auto open = [&] {
    return static_cast<int>(
        ::syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
  };
  int fd = open();
  // The one place the build_id fallback lives: kernels before 5.12 reject the
  // unknown attr bit with EINVAL; MMAP2 records then carry maj/min/ino.
  if (fd < 0 && errno == EINVAL && a.build_id != 0) {
    a.build_id = 0;
    fd = open();
    if (fd >= 0) g_build_id_rejected.store(true, std::memory_order_relaxed);
  }
  if (fd >= 0) return Fd(fd);
  const int err = errno;
  const bool refused = err == EACCES || err == EPERM;
  const int paranoid = refused ? readParanoid() : kParanoidUnknown;
  const uint64_t max_rate = err == EINVAL ? readMaxSampleRate() : 0;
  // Refused although root, or although perf_event_paranoid allows it, under
  // a seccomp filter (as container runtimes install): the filter blocked it.
  const bool allowed = ::geteuid() == 0 ||
                       (paranoid != kParanoidUnknown && paranoid <= 2 &&
                        (a.exclude_kernel != 0 || paranoid <= 1) && (pid != -1 || paranoid <= 0));
  const bool seccomp = refused && allowed && underSeccompFilter();
  return classifyOpenError(err, a, pid, paranoid, max_rate, seccomp);
}

bool underSeccompFilter() {
  // "Seccomp:\t2" in /proc/self/status: SECCOMP_MODE_FILTER.
  auto text = readProcFile("/proc/self/status");
  if (!text.ok()) return false;
  const size_t at = text->find("\nSeccomp:");
  if (at == std::string::npos) return false;
  const size_t digit = text->find_first_not_of(" \t", at + 9);
  return digit != std::string::npos && (*text)[digit] == '2';
}

Error classifyOpenError(int err, const perf_event_attr& attr, pid_t pid, int paranoid,
                        uint64_t max_sample_rate, bool seccomp_filter) {
  const std::string name = eventName(attr.type, attr.config);
  switch (err) {
    case EACCES:
    case EPERM:
      return permissionError(attr, pid, paranoid, seccomp_filter);
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (isHardwareType(attr.type)) {
        return makeError(
            "event '" + name + "' is not available: no PMU here (a VM without hardware counters?)",
            "use -e cpu-clock", ErrorKind::kUnsupported);
      }
      return makeError("event '" + name + "' is not supported by this kernel", "use -e cpu-clock",
                       ErrorKind::kUnsupported);
    case ESRCH:
      return makeError("no process with pid " + std::to_string(pid),
                       "check the pid; the process may have exited", ErrorKind::kNotFound);
    case EMFILE:
      return makeError("too many open files: strobe needs one perf event per CPU or thread",
                       "raise the limit: ulimit -n 65536");
    case EINVAL:
      if (attr.freq != 0 && max_sample_rate != 0 && attr.sample_freq > max_sample_rate) {
        return makeError("sampling frequency " + std::to_string(attr.sample_freq) +
                             " Hz is above kernel.perf_event_max_sample_rate (" +
                             std::to_string(max_sample_rate) + ")",
                         "use -F " + std::to_string(max_sample_rate) +
                             " or lower, or run: sudo sysctl kernel.perf_event_max_sample_rate=" +
                             std::to_string(attr.sample_freq),
                         ErrorKind::kUsage);
      }
      break;
    default:
      break;
  }
  Error e = makeError("perf_event_open failed for event '" + name + "' on " + targetText(pid));
  e.errnum = err;
  return e;
}

int readParanoid() {
  auto text = readProcFile("/proc/sys/kernel/perf_event_paranoid");
  int v = 0;
  if (!text.ok() || !parseNumber(*text, v)) return kParanoidUnknown;
  return v;
}

uint64_t readMaxSampleRate() {
  auto text = readProcFile("/proc/sys/kernel/perf_event_max_sample_rate");
  uint64_t v = 0;
  if (!text.ok() || !parseNumber(*text, v)) return 0;
  return v;
}

Status probeKernelSampling() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.disabled = 1;
  a.exclude_hv = 1;
  const int fd =
      static_cast<int>(::syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd >= 0) {
    ::close(fd);
    return {};
  }
  const int err = errno;
  if (err != EACCES && err != EPERM) return classifyOpenError(err, a, 0, kParanoidUnknown);
  const int paranoid = readParanoid();
  if (paranoid == kParanoidUnknown) {
    return makeError("kernel sampling is refused and kernel.perf_event_paranoid is unreadable",
                     "run as root or grant CAP_PERFMON", ErrorKind::kPermission);
  }
  return makeError("kernel.perf_event_paranoid is " + std::to_string(paranoid) +
                       ", which forbids kernel sampling for unprivileged users",
                   "sudo sysctl kernel.perf_event_paranoid=1, or grant CAP_PERFMON",
                   ErrorKind::kPermission);
}

Status enableEvent(int fd) {
  if (::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) return systemError("cannot enable perf event");
  return {};
}

Status disableEvent(int fd) {
  if (::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) != 0) return systemError("cannot disable perf event");
  return {};
}

Result<uint64_t> readCount(int fd) {
  uint64_t value = 0;
  const ssize_t n = ::read(fd, &value, sizeof value);
  if (n != static_cast<ssize_t>(sizeof value)) {
    if (n < 0) return systemError("cannot read a perf event's count");
    return makeError("a perf event's count came back as " + std::to_string(n) + " bytes, not 8");
  }
  return value;
}

Result<std::vector<int>> parseCpuList(std::string_view text) {
  constexpr int kMaxCpu = 1 << 16;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  auto bad = [&] {
    return makeError("malformed CPU list '" + std::string(text) + "'", {}, ErrorKind::kCorrupt);
  };
  if (text.empty()) return bad();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    size_t dash = item.find('-');
    int lo = 0;
    int hi = 0;
    if (dash == std::string_view::npos) {
      if (!parseNumber(item, lo)) return bad();
      hi = lo;
    } else if (!parseNumber(item.substr(0, dash), lo) || !parseNumber(item.substr(dash + 1), hi)) {
      return bad();
    }
    if (lo < 0 || hi < lo || hi >= kMaxCpu) return bad();
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    pos = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<int> onlineCpus() {
  if (auto text = readProcFile("/sys/devices/system/cpu/online"); text.ok()) {
    if (auto cpus = parseCpuList(*text); cpus.ok() && !cpus->empty()) return std::move(*cpus);
  }
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus;
  for (long c = 0; c < (n > 0 ? n : 1); ++c) cpus.push_back(static_cast<int>(c));
  return cpus;
}

int onlineCpuCount() {
  return static_cast<int>(onlineCpus().size());
}

}  // namespace strobe::perf
