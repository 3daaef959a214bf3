#include "bpf/program.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "perf/event.hpp"
#include "strobe.skel.h"

namespace strobe::bpf {
namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;
constexpr uint32_t kTargetHeld = 1;
constexpr uint32_t kTargetActive = 2;
constexpr const char* kBtfPath = "/sys/kernel/btf/vmlinux";

std::mutex g_log_mutex;
std::string g_log;  // libbpf's messages of the last load

int collectLog(enum libbpf_print_level level, const char* fmt, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[1024];
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  std::lock_guard<std::mutex> lock(g_log_mutex);
  if (g_log.size() < (1 << 20)) g_log.append(buf, n > 0 ? std::min<size_t>(n, sizeof buf - 1) : 0);
  return 0;
}

// CapEff of /proc/self/status.
uint64_t effectiveCaps() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  }
  return 0;
}

bool has(uint64_t caps, int cap) {
  return ((caps >> cap) & 1) != 0;
}

const char* kNoBpfHint = "use --engine perf";

}  // namespace

std::string lastLoadLog() {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  return g_log;
}

Status checkAvailable() {
  if (::access(kBtfPath, R_OK) != 0) {
    return makeError(std::string("the kernel has no BTF (") + kBtfPath + " is missing)",
                     "use --engine perf, or a kernel built with CONFIG_DEBUG_INFO_BTF",
                     ErrorKind::kUnsupported);
  }
  const uint64_t caps = effectiveCaps();
  const bool admin = has(caps, kCapSysAdmin);
  if (!(admin || has(caps, kCapBpf)) || !(admin || has(caps, kCapPerfmon))) {
    return makeError("BPF needs root or the capabilities CAP_BPF and CAP_PERFMON",
                     std::string(kNoBpfHint) +
                         ", run as root, or grant them: sudo setcap "
                         "cap_bpf,cap_perfmon+ep $(command -v strobe)",
                     ErrorKind::kPermission);
  }
  libbpf_set_print(nullptr);
  errno = 0;
  const int probe = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, nullptr);
  const int err = probe < 0 ? -probe : errno;
  if (probe == 1) return {};
  if (probe == 0) {
    return makeError("the kernel has no perf_event BPF programs", kNoBpfHint,
                     ErrorKind::kUnsupported);
  }
  if ((err == EPERM || err == ENOSYS) && perf::underSeccompFilter()) {
    return makeError(
        "a seccomp filter refuses the bpf() system call (as container runtimes "
        "install one)",
        std::string(kNoBpfHint) + ", or run strobe without the filter", ErrorKind::kPermission);
  }
  if (err == EPERM || err == EACCES) {
    return makeError(
        "the kernel refused to load a BPF program (" + std::string(strerror(err)) + ")",
        std::string(kNoBpfHint) + ", or run as root", ErrorKind::kPermission);
  }
  return makeError("BPF is not available here (" + std::string(strerror(err)) + ")", kNoBpfHint,
                   ErrorKind::kUnsupported);
}

struct Program::Impl {
  strobe_bpf* skel = nullptr;
  ring_buffer* ring = nullptr;
  std::vector<bpf_link*> links;
  int ncpus = 0;
  void (*sink)(const uint8_t*, size_t, void*) = nullptr;
  void* sink_arg = nullptr;

  ~Impl() {
    for (bpf_link* l : links) bpf_link__destroy(l);
    if (ring != nullptr) ring_buffer__free(ring);
    if (skel != nullptr) strobe_bpf__destroy(skel);
  }
  static int onRecord(void* ctx, void* data, size_t size) {
    auto* self = static_cast<Impl*>(ctx);
    self->sink(static_cast<const uint8_t*>(data), size, self->sink_arg);
    return 0;
  }
};

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;

Result<std::unique_ptr<Program>> Program::load(const ProgramConfig& c) {
  {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    g_log.clear();
  }
  libbpf_set_print(collectLog);
  auto impl = std::make_unique<Impl>();
  impl->skel = strobe_bpf__open();
  if (impl->skel == nullptr) {
    return systemError("cannot open strobe's BPF program", kNoBpfHint, ErrorKind::kUnsupported);
  }
  strobe_bpf* s = impl->skel;
  impl->ncpus = libbpf_num_possible_cpus();
  if (impl->ncpus <= 0) impl->ncpus = 1;
  s->rodata->cfg_filter = c.filter ? 1 : 0;
  s->rodata->cfg_kstack = c.kernel_stack ? 1 : 0;
  s->rodata->cfg_ustack = c.user_stack ? 1 : 0;
  s->rodata->cfg_build_id = c.build_id ? 1 : 0;
  s->rodata->cfg_stack_bytes = c.stack_bytes;
  s->rodata->cfg_switch_stack_bytes = c.switch_stack_bytes;
  // Wake strobe as perf's watermark does: once a quarter of the ring waits.
  s->rodata->cfg_wakeup_bytes = c.ring_bytes / 4;
  bpf_map__set_max_entries(s->maps.events, static_cast<uint32_t>(c.ring_bytes));
  bpf_map__set_max_entries(s->maps.scratch, static_cast<uint32_t>(2 * impl->ncpus));
  bpf_map__set_max_entries(s->maps.targets, c.max_targets);
  bpf_program__set_autoload(s->progs.on_switch, c.off_cpu);
  if (!c.filter) {
    // -a: every process is sampled; the process tracepoints have nothing to do.
    bpf_program__set_autoload(s->progs.on_fork, false);
    bpf_program__set_autoload(s->progs.on_exec, false);
    bpf_program__set_autoload(s->progs.on_exit, false);
  }
  if (int err = strobe_bpf__load(s); err != 0) {
    errno = -err;
    return systemError("the kernel refused strobe's BPF program",
                       std::string(kNoBpfHint) + " (STROBE_DEBUG=1 prints the kernel's reasons)",
                       ErrorKind::kUnsupported);
  }
  impl->ring = ring_buffer__new(bpf_map__fd(s->maps.events), Impl::onRecord, impl.get(), nullptr);
  if (impl->ring == nullptr) {
    return systemError("cannot read the BPF ring buffer", kNoBpfHint, ErrorKind::kUnsupported);
  }
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

Status Program::addTarget(pid_t tgid, bool held) {
  const uint32_t key = static_cast<uint32_t>(tgid);
  const uint32_t value = held ? kTargetHeld : kTargetActive;
  if (bpf_map__update_elem(impl_->skel->maps.targets, &key, sizeof key, &value, sizeof value,
                           BPF_ANY) != 0) {
    return systemError("cannot add process " + std::to_string(tgid) + " to the BPF targets");
  }
  return {};
}

Status Program::setPython(pid_t tgid, const strobe_python_proc& layout) {
  const uint32_t key = static_cast<uint32_t>(tgid);
  if (bpf_map__update_elem(impl_->skel->maps.python_procs, &key, sizeof key, &layout, sizeof layout,
                           BPF_ANY) != 0) {
    return systemError("cannot enter process " + std::to_string(tgid) +
                       "'s interpreter into the BPF program");
  }
  return {};
}

void Program::forgetPython(pid_t tgid) {
  const uint32_t key = static_cast<uint32_t>(tgid);
  (void)bpf_map__delete_elem(impl_->skel->maps.python_procs, &key, sizeof key, 0);
}

Status Program::attachSampler(int perf_fd) {
  bpf_link* l = bpf_program__attach_perf_event(impl_->skel->progs.on_sample, perf_fd);
  if (l == nullptr) {
    return systemError("cannot attach strobe's BPF program to a perf event", kNoBpfHint,
                       ErrorKind::kUnsupported);
  }
  impl_->links.push_back(l);
  return {};
}

Status Program::attachTracepoints() {
  strobe_bpf* s = impl_->skel;
  for (bpf_program* p :
       {s->progs.on_fork, s->progs.on_exec, s->progs.on_exit, s->progs.on_switch}) {
    if (!bpf_program__autoload(p)) continue;
    bpf_link* l = bpf_program__attach(p);
    if (l == nullptr) {
      return systemError(std::string("cannot attach to the scheduler's tracepoint (") +
                             bpf_program__section_name(p) + ")",
                         kNoBpfHint, ErrorKind::kUnsupported);
    }
    impl_->links.push_back(l);
  }
  return {};
}

void Program::detach() {
  for (bpf_link* l : impl_->links) bpf_link__destroy(l);
  impl_->links.clear();
}

int Program::pollFd() const {
  return ring_buffer__epoll_fd(impl_->ring);
}

size_t Program::drain(void (*sink)(const uint8_t*, size_t, void*), void* arg) {
  impl_->sink = sink;
  impl_->sink_arg = arg;
  const int n = ring_buffer__consume(impl_->ring);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

Counters Program::counters() const {
  Counters c;
  std::vector<uint64_t> values(static_cast<size_t>(impl_->ncpus));
  uint64_t* sums[] = {&c.lost_samples, &c.lost_switches, &c.filtered};
  for (uint32_t key = 0; key < STROBE_CTR_COUNT; ++key) {
    if (bpf_map__lookup_elem(impl_->skel->maps.counters, &key, sizeof key, values.data(),
                             values.size() * sizeof(uint64_t), 0) != 0) {
      continue;
    }
    for (uint64_t v : values) *sums[key] += v;
  }
  return c;
}

}  // namespace strobe::bpf
