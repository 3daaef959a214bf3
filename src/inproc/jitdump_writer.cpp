#include "inproc/jitdump_writer.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/clock.hpp"

namespace strobe::inproc {
namespace {

// No JIT function is this large; a registration claiming more is not written.
constexpr uint64_t kMaxCodeBytes = uint64_t{32} << 20;

// Set in a fork()ed child (the file open is its parent's), and the calling
// thread's id, cached: two system calls fewer per registration.
std::atomic<bool> g_forked{false};
thread_local uint32_t t_tid = 0;

void onFork() {
  g_forked.store(true, std::memory_order_relaxed);
  t_tid = 0;  // the child's one thread is the one that forked
}

uint32_t selfTid() {
  if (t_tid == 0) t_tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return t_tid;
}

bool writeAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool JitdumpWriter::ready() {
  if (disabled_) return false;
  if (fd_ >= 0 && !g_forked.load(std::memory_order_relaxed)) return true;
  if (fd_ >= 0) ::close(fd_);  // a forked child: the file is its parent's
  fd_ = -1;
  static const bool registered = ::pthread_atfork(nullptr, nullptr, onFork) == 0;
  (void)registered;
  g_forked.store(false, std::memory_order_relaxed);
  const auto pid = static_cast<int32_t>(::getpid());
  const char* dir = std::getenv("STROBE_JITDUMP");
  if (dir == nullptr || *dir == '\0') {
    disabled_ = true;
    return false;
  }
  pid_ = pid;
  path_ = std::string(dir) + "/jit-" + std::to_string(pid) + ".dump";
  fd_ = ::open(path_.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::fprintf(stderr,
                 "strobe: cannot write the jitdump %s: %s\n  hint: set STROBE_JITDUMP to a "
                 "writable directory, or unset it\n",
                 path_.c_str(), std::strerror(errno));
    disabled_ = true;
    path_.clear();
    return false;
  }
  buf_.clear();
  symbolize::appendJitdumpHeader(buf_, static_cast<uint32_t>(pid), monotonicNs());
  // The marker: an executable mapping of the file, which profilers see as
  // an MMAP2 record (the mapping is never used and stays for the process's life).
  const long page = ::sysconf(_SC_PAGESIZE);
  if (!writeAll(fd_, buf_) || ::mmap(nullptr, static_cast<size_t>(page > 0 ? page : 4096),
                                     PROT_READ | PROT_EXEC, MAP_PRIVATE, fd_, 0) == MAP_FAILED) {
    std::fprintf(stderr, "strobe: cannot write the jitdump %s: %s\n", path_.c_str(),
                 std::strerror(errno));
    ::close(fd_);
    fd_ = -1;
    disabled_ = true;
    path_.clear();
    return false;
  }
  return true;
}

void JitdumpWriter::load(uint64_t time_ns, uint64_t start, uint64_t size, std::string_view name,
                         std::span<const symbolize::JitdumpLine> lines) {
  if (size > kMaxCodeBytes || !ready()) return;
  // The code as it is now, read without trusting that it is readable (zeros
  // when it is not: readers take code_size from the bytes that follow).
  std::vector<uint8_t> code(size);
  if (!code.empty()) {
    iovec local{code.data(), code.size()};
    iovec remote{reinterpret_cast<void*>(start), code.size()};
    if (::process_vm_readv(pid_, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(code.size())) {
      std::fill(code.begin(), code.end(), uint8_t{0});
    }
  }
  buf_.clear();
  if (!lines.empty()) symbolize::appendJitdumpDebugInfo(buf_, time_ns, start, lines);
  symbolize::appendJitdumpLoad(buf_, time_ns, static_cast<uint32_t>(pid_), selfTid(), start, code,
                               index_++, name);
  (void)writeAll(fd_, buf_);
}

}  // namespace strobe::inproc
