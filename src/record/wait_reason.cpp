#include "record/wait_reason.hpp"

#include <array>
#include <utility>

namespace strobe::record {
namespace {

using model::OffCpuReason;

// System calls that block for a known reason; every other one is kOther.
constexpr std::array<std::pair<std::string_view, OffCpuReason>, 61> kSyscalls = {{
    {"nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep_time32", OffCpuReason::kSleep},
    {"futex", OffCpuReason::kLock},
    {"futex_time32", OffCpuReason::kLock},
    {"futex_waitv", OffCpuReason::kLock},
    {"futex_wait", OffCpuReason::kLock},
    {"semop", OffCpuReason::kLock},
    {"semtimedop", OffCpuReason::kLock},
    {"flock", OffCpuReason::kLock},
    {"read", OffCpuReason::kIo},
    {"write", OffCpuReason::kIo},
    {"pread64", OffCpuReason::kIo},
    {"pwrite64", OffCpuReason::kIo},
    {"readv", OffCpuReason::kIo},
    {"writev", OffCpuReason::kIo},
    {"preadv", OffCpuReason::kIo},
    {"pwritev", OffCpuReason::kIo},
    {"preadv2", OffCpuReason::kIo},
    {"pwritev2", OffCpuReason::kIo},
    {"recvfrom", OffCpuReason::kIo},
    {"recvmsg", OffCpuReason::kIo},
    {"recvmmsg", OffCpuReason::kIo},
    {"sendto", OffCpuReason::kIo},
    {"sendmsg", OffCpuReason::kIo},
    {"sendmmsg", OffCpuReason::kIo},
    {"accept", OffCpuReason::kIo},
    {"accept4", OffCpuReason::kIo},
    {"connect", OffCpuReason::kIo},
    {"poll", OffCpuReason::kIo},
    {"ppoll", OffCpuReason::kIo},
    {"select", OffCpuReason::kIo},
    {"pselect6", OffCpuReason::kIo},
    {"epoll_wait", OffCpuReason::kIo},
    {"epoll_pwait", OffCpuReason::kIo},
    {"epoll_pwait2", OffCpuReason::kIo},
    {"io_getevents", OffCpuReason::kIo},
    {"io_pgetevents", OffCpuReason::kIo},
    {"io_uring_enter", OffCpuReason::kIo},
    {"fsync", OffCpuReason::kIo},
    {"fdatasync", OffCpuReason::kIo},
    {"sync", OffCpuReason::kIo},
    {"syncfs", OffCpuReason::kIo},
    {"sync_file_range", OffCpuReason::kIo},
    {"open", OffCpuReason::kIo},
    {"openat", OffCpuReason::kIo},
    {"openat2", OffCpuReason::kIo},
    {"splice", OffCpuReason::kIo},
    {"tee", OffCpuReason::kIo},
    {"sendfile", OffCpuReason::kIo},
    {"sendfile64", OffCpuReason::kIo},
    {"copy_file_range", OffCpuReason::kIo},
    {"fallocate", OffCpuReason::kIo},
    {"getdents64", OffCpuReason::kIo},
    {"msgrcv", OffCpuReason::kIo},
    {"msgsnd", OffCpuReason::kIo},
    {"mq_timedreceive", OffCpuReason::kIo},
    {"mq_timedsend", OffCpuReason::kIo},
    {"msync", OffCpuReason::kIo},
    {"wait4", OffCpuReason::kOther},
    {"waitid", OffCpuReason::kOther},
}};

// Kernel functions that decide on their own: name prefixes.
constexpr std::array<std::pair<std::string_view, OffCpuReason>, 21> kFunctions = {{
    {"do_nanosleep", OffCpuReason::kSleep},
    {"hrtimer_nanosleep", OffCpuReason::kSleep},
    {"futex_wait", OffCpuReason::kLock},
    {"__futex_wait", OffCpuReason::kLock},
    {"futex_lock_pi", OffCpuReason::kLock},
    {"rwsem_down_", OffCpuReason::kLock},
    {"__mutex_lock", OffCpuReason::kLock},
    {"rt_mutex_slowlock", OffCpuReason::kLock},
    {"percpu_rwsem_wait", OffCpuReason::kLock},
    {"io_schedule", OffCpuReason::kIo},
    {"folio_wait_bit", OffCpuReason::kIo},
    {"pipe_read", OffCpuReason::kIo},
    {"pipe_write", OffCpuReason::kIo},
    {"sk_wait_data", OffCpuReason::kIo},
    {"unix_stream_read_generic", OffCpuReason::kIo},
    {"wait_woken", OffCpuReason::kIo},
    {"ep_poll", OffCpuReason::kIo},
    {"do_select", OffCpuReason::kIo},
    {"do_sys_poll", OffCpuReason::kIo},
    {"n_tty_read", OffCpuReason::kIo},
    {"exc_page_fault", OffCpuReason::kIo},
}};

// The prefixes of a system call's entry points in the kernel.
constexpr std::array<std::string_view, 8> kSyscallPrefixes = {
    "__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_",
    "__do_sys_",  "__sys_",      "ksys_",        "__ia32_compat_sys_"};

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

OffCpuReason reasonOfKernelFunction(std::string_view name) {
  if (size_t sp = name.find(' '); sp != std::string_view::npos) name = name.substr(0, sp);
  if (size_t dot = name.find('.'); dot != std::string_view::npos) name = name.substr(0, dot);
  if (name == "asm_exc_page_fault") return OffCpuReason::kIo;
  for (std::string_view prefix : kSyscallPrefixes) {
    if (!startsWith(name, prefix)) continue;
    std::string_view call = name.substr(prefix.size());
    for (const auto& [n, reason] : kSyscalls) {
      if (n == call) return reason;
    }
    return OffCpuReason::kUnknown;
  }
  for (const auto& [prefix, reason] : kFunctions) {
    if (startsWith(name, prefix)) return reason;
  }
  return OffCpuReason::kUnknown;
}

OffCpuReason classifyKernelStack(std::span<const std::string> names) {
  if (names.empty()) return OffCpuReason::kUnknown;
  for (const std::string& n : names) {
    OffCpuReason r = reasonOfKernelFunction(n);
    if (r != OffCpuReason::kUnknown) return r;
  }
  return OffCpuReason::kOther;
}

size_t applyWaitReasons(model::Profile& p, const OffCpuKernelChains& c,
                        const std::function<std::string(uint64_t)>& kernel_name) {
  std::vector<OffCpuReason> of_chain;
  of_chain.reserve(c.chains.size());
  std::vector<std::string> names;
  for (const std::vector<uint64_t>& chain : c.chains) {
    names.clear();
    for (uint64_t addr : chain) names.push_back(kernel_name(addr));
    // A chain whose every name is unknown (hidden kernel symbols) says nothing.
    bool any = false;
    for (const std::string& n : names) any = any || !n.empty();
    of_chain.push_back(any ? classifyKernelStack(names) : OffCpuReason::kUnknown);
  }
  size_t known = 0;
  auto& samples = p.mutableSamples();
  for (const OffCpuKernelChains::Use& u : c.samples) {
    if (u.sample >= samples.size() || u.chain >= of_chain.size()) continue;
    model::Sample& s = samples[u.sample];
    if (s.kind != model::SampleKind::kOffCpu || s.off_cpu_reason == OffCpuReason::kPreempted) {
      continue;
    }
    s.off_cpu_reason = of_chain[u.chain];
    if (s.off_cpu_reason != OffCpuReason::kUnknown) ++known;
  }
  return known;
}

}  // namespace strobe::record
