#include "inproc/spans.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string_view>

#include "base/log.hpp"
#include "channel/announce.hpp"

namespace strobe::inproc::spans {
namespace {

// Before the channel exists: a gate that sends the first caller to prepare().
constinit std::atomic<uint64_t> g_first_use{(uint64_t{1} << 32) | 0x80000000U};
// When the channel cannot be made: always closed.
constinit std::atomic<uint64_t> g_closed{0};

// Only constant-initialized state: a program may call the API from its own
// static constructors, before this file's dynamic initializers run.
constinit std::mutex g_init_mu;
bool g_failed = false;
pthread_key_t g_key;
bool g_key_made = false;

int32_t selfTid() {
  return static_cast<int32_t>(::syscall(SYS_gettid));
}

// Thread exit: the slot goes back to the pool once readers drained it.
void onThreadExit(void* p) {
  auto* t = static_cast<ThreadState*>(p);
  if (t == nullptr) return;
  if (t->writer.attached()) channel::Producer::retireSlot(t->writer.slot());
  if (t_state == t) t_state = nullptr;
  delete t;
}

// In a forked child: the parent's channel is not ours to write. Our copy of
// its mapping goes; a new channel is made on first use (or now, under
// strobe record). Other threads' states were copied but their threads are
// gone: leaked.
void atforkChild() {
  new (&g_init_mu) std::mutex();
  if (ThreadState* t = t_state) {
    t_state = nullptr;
    if (g_key_made) ::pthread_setspecific(g_key, nullptr);
    delete t;
  }
  g_gate.store(&g_first_use, std::memory_order_release);
  delete g_producer.exchange(nullptr);
  g_failed = false;
  initFromEnvironment();
}

// With g_init_mu held.
channel::Producer* makeLocked() {
  if (channel::Producer* p = g_producer.load(std::memory_order_acquire)) return p;
  if (g_failed) return nullptr;
  auto made = channel::Producer::create();
  if (!made.ok()) {
    g_failed = true;
    g_gate.store(&g_closed, std::memory_order_release);
    logWarning("spans are not recorded: " + made.error().describe());
    return nullptr;
  }
  static bool registered = false;
  if (!registered) {
    registered = true;
    g_key_made = ::pthread_key_create(&g_key, onThreadExit) == 0;
    ::pthread_atfork(nullptr, nullptr, atforkChild);
  }
  channel::Producer* p = made->release();
  // Launched by strobe record: join on its behalf, then hand it the channel.
  if (const char* address = std::getenv(channel::kEnvVar); address != nullptr && p->fd() >= 0) {
    if (int32_t strobe_pid = channel::listenerPid(address); strobe_pid > 0) {
      channel::joinReader(p->header(), channel::kReaderExternal, strobe_pid, monotonicNs());
      if (!channel::announce(address, p->fd())) {
        channel::leaveReader(p->header(), channel::kReaderExternal, strobe_pid);
      }
    }
  }
  g_producer.store(p, std::memory_order_release);
  g_gate.store(&p->header()->gate, std::memory_order_release);
  return p;
}

// The calling thread's state, made with a slot if it has none.
ThreadState* threadState(channel::Producer* p) {
  ThreadState* t = t_state;
  if (t != nullptr) return t;
  t = new (std::nothrow) ThreadState();
  if (t == nullptr) return nullptr;
  if (channel::SlotHeader* s = p->claimSlot(selfTid())) {
    t->writer.attach(p->header(), s, p->ringOf(s));
  }
  t_state = t;
  if (g_key_made) ::pthread_setspecific(g_key, t);
  return t;
}

}  // namespace

std::atomic<const std::atomic<uint64_t>*> g_gate{&g_first_use};
std::atomic<channel::Producer*> g_producer{nullptr};
constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

channel::Producer* producer() {
  if (channel::Producer* p = g_producer.load(std::memory_order_acquire)) return p;
  std::lock_guard lock(g_init_mu);
  return makeLocked();
}

void initFromEnvironment() {
  if (std::getenv(channel::kEnvVar) != nullptr) (void)producer();
}

ThreadState* prepare(uint64_t gate) {
  channel::Producer* p = producer();
  if (p == nullptr) return nullptr;
  if (g_gate.load(std::memory_order_acquire) != &p->header()->gate) return nullptr;
  gate = loadGate();  // the first-use gate told us nothing
  if (channel::gateMask(gate) == 0) return nullptr;
  ThreadState* t = threadState(p);
  if (t == nullptr) return nullptr;
  // Recording started since this thread last recorded (no reader was
  // active in between): spans open now began before it and are not
  // recorded; the ring's limit is read afresh.
  t->generation = channel::gateGeneration(gate);
  t->depth = 0;
  if (t->writer.attached()) t->writer.reset();
  return t;
}

void beginRecording(const char* name, uint64_t gate) {
  ThreadState* t = t_state;
  if (t == nullptr || t->generation != channel::gateGeneration(gate)) [[unlikely]] {
    t = prepare(gate);
    if (t == nullptr) return;
  }
  const uint32_t d = t->depth++;
  if (d < kMaxDepth) t->stack[d] = Frame{name, monotonicNs()};
}

void endRecording(uint64_t gate) {
  ThreadState* t = t_state;
  if (t == nullptr || t->generation != channel::gateGeneration(gate) || t->depth == 0) return;
  const uint32_t d = --t->depth;
  if (!t->writer.attached()) [[unlikely]] {
    countNoSlot();
    return;
  }
  if (d >= kMaxDepth) [[unlikely]] {
    t->writer.countTooDeep();
    return;
  }
  const uint64_t now = monotonicNs();
  const Frame& f = t->stack[d];
  const char* name = f.name != nullptr ? f.name : "";
  channel::SpanRecord r{{channel::kSpan, sizeof(channel::SpanRecord),
                         g_producer.load(std::memory_order_relaxed)->nameId(name)},
                        f.start_ns,
                        now,
                        d,
                        0};
  t->writer.append(&r, sizeof r, now);
}

void countNoSlot() {
  if (channel::Producer* p = g_producer.load(std::memory_order_acquire)) {
    p->header()->lost_no_slot.fetch_add(1, std::memory_order_relaxed);
  }
}

void setRole(const char* role, int index) {
  channel::Producer* p = producer();
  if (p == nullptr) return;
  ThreadState* t = threadState(p);
  if (t == nullptr || !t->writer.attached()) return;
  std::string_view text = role != nullptr ? std::string_view(role) : std::string_view();
  channel::Producer::setRole(t->writer.slot(), text, index);
  // Readers now reading get it in order with the spans, even if the thread
  // exits before they look at its slot.
  const uint64_t gate = loadGate();
  if (channel::gateMask(gate) == 0) return;
  if (t->generation != channel::gateGeneration(gate) && prepare(gate) == nullptr) return;
  channel::RoleRecord r{};
  r.h = channel::RecordHeader{channel::kRole, sizeof r, static_cast<uint32_t>(index)};
  text.copy(r.role, std::min<size_t>(text.size(), channel::kRoleBytes - 1));
  t->writer.append(&r, sizeof r, monotonicNs());
}

Result<std::unique_ptr<channel::Consumer>> openSessionReader() {
  channel::Producer* p = producer();
  if (p == nullptr) return makeError("the span channel could not be made");
  auto c = channel::Consumer::borrow(p->base(), p->size());
  if (!c.ok()) return c;
  if (Status s = (*c)->join(channel::kReaderInProcess, static_cast<int32_t>(::getpid())); !s.ok()) {
    return s.takeError();
  }
  return c;
}

}  // namespace strobe::inproc::spans
