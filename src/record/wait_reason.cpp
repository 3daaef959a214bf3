#include "record/wait_reason.hpp"

#include <array>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "record/converter.hpp"

namespace strobe::record {
namespace {

using model::OffCpuReason;

// System calls (and their C library wrappers) that block for a known
// reason.
constexpr std::array<std::pair<std::string_view, OffCpuReason>, 76> kCalls = {{
    {"nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep_time32", OffCpuReason::kSleep},
    {"usleep", OffCpuReason::kSleep},
    {"sleep", OffCpuReason::kSleep},
    {"futex", OffCpuReason::kLock},
    {"futex_time32", OffCpuReason::kLock},
    {"futex_waitv", OffCpuReason::kLock},
    {"semop", OffCpuReason::kLock},
    {"semtimedop", OffCpuReason::kLock},
    {"flock", OffCpuReason::kLock},
    {"lockf", OffCpuReason::kLock},
    {"read", OffCpuReason::kIo},
    {"write", OffCpuReason::kIo},
    {"pread", OffCpuReason::kIo},
    {"pwrite", OffCpuReason::kIo},
    {"pread64", OffCpuReason::kIo},
    {"pwrite64", OffCpuReason::kIo},
    {"readv", OffCpuReason::kIo},
    {"writev", OffCpuReason::kIo},
    {"preadv", OffCpuReason::kIo},
    {"pwritev", OffCpuReason::kIo},
    {"preadv2", OffCpuReason::kIo},
    {"pwritev2", OffCpuReason::kIo},
    {"recv", OffCpuReason::kIo},
    {"recvfrom", OffCpuReason::kIo},
    {"recvmsg", OffCpuReason::kIo},
    {"recvmmsg", OffCpuReason::kIo},
    {"send", OffCpuReason::kIo},
    {"sendto", OffCpuReason::kIo},
    {"sendmsg", OffCpuReason::kIo},
    {"sendmmsg", OffCpuReason::kIo},
    {"accept", OffCpuReason::kIo},
    {"accept4", OffCpuReason::kIo},
    {"connect", OffCpuReason::kIo},
    {"poll", OffCpuReason::kIo},
    {"ppoll", OffCpuReason::kIo},
    {"select", OffCpuReason::kIo},
    {"pselect", OffCpuReason::kIo},
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
    {"wait", OffCpuReason::kOther},
    {"wait4", OffCpuReason::kOther},
    {"waitpid", OffCpuReason::kOther},
    {"waitid", OffCpuReason::kOther},
    {"pause", OffCpuReason::kOther},
    {"sigsuspend", OffCpuReason::kOther},
    {"rt_sigsuspend", OffCpuReason::kOther},
    {"sigtimedwait", OffCpuReason::kOther},
    {"rt_sigtimedwait", OffCpuReason::kOther},
    {"sigwaitinfo", OffCpuReason::kOther},
}};

// Kernel functions that decide on their own: name prefixes.
constexpr std::array<std::pair<std::string_view, OffCpuReason>, 21> kKernelFunctions = {{
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

// User-space lock waits: the C library's names for them (after the
// prefixes are stripped), as prefixes.
constexpr std::array<std::string_view, 13> kUserLocks = {
    "pthread_mutex_", "pthread_cond_",     "pthread_rwlock_",   "pthread_barrier_wait",
    "pthread_join",   "pthread_clockjoin", "pthread_timedjoin", "lll_lock",
    "lll_wait",       "sem_wait",          "sem_timedwait",     "sem_clockwait",
    "new_sem_wait"};

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

OffCpuReason ofCall(std::string_view call) {
  for (const auto& [n, reason] : kCalls) {
    if (n == call) return reason;
  }
  return OffCpuReason::kUnknown;
}

// A symbol without its version (@GLIBC_2.34), compiler suffix (.isra.0),
// module ( [ext4]) or C++ parameters.
std::string_view bareName(std::string_view name) {
  for (char stop : {' ', '@', '.', '('}) {
    if (size_t at = name.find(stop); at != std::string_view::npos) name = name.substr(0, at);
  }
  return name;
}

}  // namespace

OffCpuReason reasonOfKernelFunction(std::string_view name) {
  name = bareName(name);
  if (name == "asm_exc_page_fault") return OffCpuReason::kIo;
  for (std::string_view prefix : kSyscallPrefixes) {
    if (startsWith(name, prefix)) return ofCall(name.substr(prefix.size()));
  }
  for (const auto& [prefix, reason] : kKernelFunctions) {
    if (startsWith(name, prefix)) return reason;
  }
  return OffCpuReason::kUnknown;
}

OffCpuReason reasonOfUserFunction(std::string_view name) {
  name = bareName(name);
  // glibc's internal names: __GI___libc_read, __libc_recv, __read_nocancel,
  // __futex_abstimed_wait_common64, __GI___clock_nanosleep, ...
  for (bool again = true; again;) {
    again = false;
    for (std::string_view prefix : {"__GI_", "__libc_", "libc_", "_"}) {
      if (startsWith(name, prefix) && name.size() > prefix.size()) {
        name.remove_prefix(prefix.size());
        again = true;
      }
    }
  }
  if (endsWith(name, "_nocancel")) name.remove_suffix(9);
  if (name.find("futex") != std::string_view::npos) return OffCpuReason::kLock;
  for (std::string_view lock : kUserLocks) {
    if (startsWith(name, lock)) return OffCpuReason::kLock;
  }
  OffCpuReason r = ofCall(name);
  if (r == OffCpuReason::kUnknown && endsWith(name, "64"))
    r = ofCall(name.substr(0, name.size() - 2));
  if (r == OffCpuReason::kUnknown && endsWith(name, "_time64")) {
    r = ofCall(name.substr(0, name.size() - 7));
  }
  return r;
}

OffCpuReason classifyWait(std::span<const WaitFrame> leaf_first) {
  if (leaf_first.empty()) return OffCpuReason::kUnknown;
  size_t user = 0;
  for (const WaitFrame& f : leaf_first) {
    if (!f.kernel && ++user > kMaxUserFrames) break;
    if (f.name.empty()) continue;
    OffCpuReason r = f.kernel ? reasonOfKernelFunction(f.name) : reasonOfUserFunction(f.name);
    if (r != OffCpuReason::kUnknown) return r;
  }
  return OffCpuReason::kOther;
}

size_t applyWaitReasons(model::Profile& p) {
  model::ModuleId kernel = model::kNone;
  for (model::ModuleId m = 0; m < p.modules().size(); ++m) {
    if (p.str(p.modules()[m].path) == kKernelModule) kernel = m;
  }
  std::unordered_map<model::StackId, OffCpuReason> memo;
  std::vector<WaitFrame> frames;
  size_t known = 0;
  for (model::Sample& s : p.mutableSamples()) {
    if (s.kind != model::SampleKind::kOffCpu || s.off_cpu_reason == OffCpuReason::kPreempted) {
      continue;
    }
    auto [it, inserted] = memo.try_emplace(s.stack, OffCpuReason::kUnknown);
    if (inserted) {
      frames.clear();
      p.forEachFrame(s.stack, [&](model::LocationId l) {
        const model::Location& loc = p.locations()[l];
        const bool in_kernel = kernel != model::kNone && loc.module == kernel;
        if (loc.lines.empty()) frames.push_back(WaitFrame{{}, in_kernel});
        for (const model::Line& line : loc.lines) {  // an inline chain, innermost first
          std::string_view name = line.function != model::kNone
                                      ? std::string_view(p.str(p.functions()[line.function].name))
                                      : std::string_view();
          frames.push_back(WaitFrame{name, in_kernel});
        }
      });
      it->second = classifyWait(frames);
    }
    s.off_cpu_reason = it->second;
    if (it->second == OffCpuReason::kSleep || it->second == OffCpuReason::kIo ||
        it->second == OffCpuReason::kLock) {
      ++known;
    }
  }
  return known;
}

}  // namespace strobe::record
