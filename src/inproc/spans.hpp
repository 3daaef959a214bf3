// Spans and thread roles, the program's side (strobe_span_begin/end,
// strobe_thread_role): the hot path inline here, the slow paths in
// spans.cpp.
//
// The process has one span channel (channel/producer.hpp), made the first
// time a span or role is used, or at load when STROBE_CHANNEL says strobe
// record launched the program. `g_gate` points at the channel's gate (at a
// constant "made on first use" gate before that): while no reader is
// active, begin() and end() are one load of it and a branch. While one is,
// begin() pushes (name, clock) on the thread's own stack and end() pops it
// and appends one 32-byte record to the thread's ring: a clock read and a
// store, no lock, no allocation, no system call. The stack keeps
// kMaxDepth open spans; deeper ones are counted, not recorded. A span that
// began while no reader was active is not recorded; one that began before a
// second reader joined is recorded for the first only.
//
// Thread safety: every function may be called from any thread. Not
// async-signal-safe (the slow paths allocate and take a mutex). After
// fork() the child gets a channel of its own on first use.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/clock.hpp"
#include "channel/consumer.hpp"
#include "channel/producer.hpp"

namespace strobe::inproc::spans {

inline constexpr uint32_t kMaxDepth = 64;

struct Frame {
  const char* name;
  uint64_t start_ns;
};

struct ThreadState {
  uint32_t generation = 0;  // of the gate this state follows
  uint32_t depth = 0;       // open spans (may exceed kMaxDepth)
  channel::SlotWriter writer;
  Frame stack[kMaxDepth];
};

extern std::atomic<const std::atomic<uint64_t>*> g_gate;
extern std::atomic<channel::Producer*> g_producer;
// constinit: no TLS wrapper call on access; initial-exec: a %fs-relative load.
extern constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec")));

// Slow paths. prepare(): the calling thread's state for `gate` (makes the
// channel, the state and its slot as needed; a new generation forgets open
// spans), nullptr when nothing is to be recorded.
ThreadState* prepare(uint64_t gate);
void countNoSlot();

// The work while something records, out of line so that the fast path
// below sets up no stack frame: a tail call when the gate is open.
[[gnu::noinline]] void beginRecording(const char* name, uint64_t gate);
[[gnu::noinline]] void endRecording(uint64_t gate);

inline uint64_t loadGate() {
  return g_gate.load(std::memory_order_acquire)->load(std::memory_order_relaxed);
}

inline void begin(const char* name) {
  const uint64_t gate = loadGate();
  if (channel::gateMask(gate) != 0) [[unlikely]] {
    beginRecording(name, gate);
  }
}

inline void end() {
  const uint64_t gate = loadGate();
  if (channel::gateMask(gate) != 0) [[unlikely]] {
    endRecording(gate);
  }
}

// The calling thread's role; index < 0 for none. Kept while the thread
// lives, so a reader that joins later learns it too.
void setRole(const char* role, int index);

// The process's channel (made now if need be), nullptr when it cannot be.
channel::Producer* producer();

// Makes the channel now when STROBE_CHANNEL asks for it (libstrobe's
// constructor), so spans from the program's first instruction are kept.
void initFromEnvironment();

// A reader of this process's own channel, joined as the in-process reader
// (the libstrobe session); nullptr with the reason when it cannot be.
Result<std::unique_ptr<channel::Consumer>> openSessionReader();

}  // namespace strobe::inproc::spans
