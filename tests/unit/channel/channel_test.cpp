// The span channel without libstrobe: a Producer and SlotWriters as the
// program's threads use them, a Consumer as strobe does, and hostile
// channels (bad headers, damaged records, unsealed memfds).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "channel/announce.hpp"
#include "channel/consumer.hpp"
#include "channel/producer.hpp"

namespace strobe::channel {
namespace {

struct Collected : Sink {
  std::vector<SpanEvent> spans;
  std::vector<std::string> names;
  std::map<int32_t, std::string> roles;
  void span(const SpanEvent& s) override {
    spans.push_back(s);
    names.emplace_back(s.name);
  }
  void role(int32_t tid, std::string_view role, int32_t index) override {
    roles[tid] = std::string(role) + "/" + std::to_string(index);
  }
};

// One producer thread's view: a claimed slot and its writer.
struct Thread {
  SlotHeader* slot;
  SlotWriter w;
};

Thread claim(Producer& p, int32_t tid) {
  Thread t{p.claimSlot(tid), {}};
  EXPECT_NE(t.slot, nullptr);
  t.w.attach(p.header(), t.slot, p.ringOf(t.slot));
  return t;
}

// The tests' span times, kBase + their own: after any reader's join (a
// reader skips spans that began before it joined), far from the clock's now.
constexpr uint64_t kBase = uint64_t{1} << 62;

bool span(Producer& p, Thread& t, const char* name, uint64_t start, uint64_t end, uint32_t depth) {
  SpanRecord r{{kSpan, sizeof(SpanRecord), p.nameId(name)}, kBase + start, kBase + end, depth, 0};
  return t.w.append(&r, sizeof r, end);
}

std::unique_ptr<Producer> make() {
  auto p = Producer::create();
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().describe());
  return std::move(*p);
}

std::unique_ptr<Consumer> reader(Producer& p) {
  auto c = Consumer::borrow(p.base(), p.size());
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
  return std::move(*c);
}

TEST(Channel, NothingIsRecordedWithoutAReader) {
  auto p = make();
  EXPECT_EQ(gateMask(p->header()->gate.load()), 0u);
  Thread t = claim(*p, 100);
  // The program's fast path checks the gate first; a writer that still
  // tries finds no room and counts a drop, never waits.
  EXPECT_FALSE(span(*p, t, "x", 1, 2, 0));
}

TEST(Channel, SpansAndRolesReachTheReaderInOrder) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  EXPECT_NE(gateMask(p->header()->gate.load()), 0u);
  Thread a = claim(*p, 100);
  Thread b = claim(*p, 101);
  Producer::setRole(a.slot, "worker", 3);
  EXPECT_TRUE(span(*p, a, "request", 10, 50, 0));
  EXPECT_TRUE(span(*p, a, "parse", 12, 20, 1));
  EXPECT_TRUE(span(*p, b, "request", 30, 40, 0));
  Collected got;
  c->drain(got);
  ASSERT_EQ(got.spans.size(), 3u);
  EXPECT_EQ(got.names, (std::vector<std::string>{"request", "parse", "request"}));
  EXPECT_EQ(got.spans[0].tid, 100);
  EXPECT_EQ(got.spans[0].start_ns, kBase + 10);
  EXPECT_EQ(got.spans[0].end_ns, kBase + 50);
  EXPECT_EQ(got.spans[1].depth, 1u);
  EXPECT_EQ(got.spans[2].tid, 101);
  EXPECT_EQ(got.roles[100], "worker/3");
  EXPECT_EQ(got.roles.count(101), 0u);
  // Drained: nothing twice.
  Collected again;
  c->drain(again);
  EXPECT_TRUE(again.spans.empty());
  c->leave();
  EXPECT_EQ(gateMask(p->header()->gate.load()), 0u);
}

TEST(Channel, NamesAreInternedByAddress) {
  auto p = make();
  static const char kA[] = "same";
  static const char kB[] = "same";
  uint32_t a = p->nameId(kA);
  EXPECT_EQ(p->nameId(kA), a);
  EXPECT_NE(p->nameId(kB), a);  // another address, another id, the same text
  std::string long_name(1000, 'n');
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderInProcess, 1).ok());
  Thread t = claim(*p, 7);
  ASSERT_TRUE(span(*p, t, long_name.c_str(), 1, 2, 0));
  Collected got;
  c->drain(got);
  ASSERT_EQ(got.names.size(), 1u);
  EXPECT_EQ(got.names[0], std::string(kMaxNameLength, 'n'));
}

TEST(Channel, AFullRingDropsAndCountsWithoutWaiting) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Thread t = claim(*p, 100);
  const uint64_t fits = kRingBytes / sizeof(SpanRecord);
  uint64_t ok = 0, refused = 0;
  for (uint64_t i = 0; i < fits + 500; ++i) {
    (span(*p, t, "x", i, i + 1, 0) ? ok : refused) += 1;
  }
  EXPECT_EQ(ok, fits);
  EXPECT_EQ(refused, 500u);
  Collected got;
  c->drain(got);
  EXPECT_EQ(got.spans.size(), fits);
  EXPECT_EQ(c->stats().dropped, 500u);
  EXPECT_EQ(c->stats().spans, fits);
  // Room again once drained.
  EXPECT_TRUE(span(*p, t, "x", 1, 2, 0));
}

TEST(Channel, RecordsWrapAroundTheRingWithPadding) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Thread t = claim(*p, 100);
  Collected got;
  uint64_t sent = 0, roles = 0;
  // Role records (72 bytes) between spans (32) misalign records with the
  // ring's end, so some must be padded over it; several laps of the ring.
  for (int lap = 0; lap < 100; ++lap) {
    for (int i = 0; i < 1000; ++i) {
      if (i % 7 == 3) {
        RoleRecord r{};
        r.h = RecordHeader{kRole, sizeof r, static_cast<uint32_t>(i)};
        std::strcpy(r.role, "lapper");
        ASSERT_TRUE(t.w.append(&r, sizeof r, 1));
        ++roles;
      } else {
        ASSERT_TRUE(span(*p, t, "lap", sent, sent + 1, 0));
        ++sent;
      }
    }
    c->drain(got);
  }
  ASSERT_EQ(got.spans.size(), sent);
  for (uint64_t i = 0; i < sent; ++i) ASSERT_EQ(got.spans[i].start_ns, kBase + i) << "span " << i;
  EXPECT_GT(t.slot->head.load(), uint64_t{kRingBytes} * 3);
  EXPECT_EQ(c->stats().malformed, 0u);
  EXPECT_EQ(got.roles[100], "lapper/" + std::to_string(999 - (999 - 3) % 7));
  EXPECT_GT(roles, 0u);
}

TEST(Channel, TwoReadersEachGetEverything) {
  auto p = make();
  auto own = reader(*p);
  auto strobe = reader(*p);
  ASSERT_TRUE(own->join(kReaderInProcess, 1).ok());
  ASSERT_TRUE(strobe->join(kReaderExternal, 2).ok());
  Thread t = claim(*p, 100);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(span(*p, t, "x", i, i + 1, 0));
  Collected a, b;
  own->drain(a);
  EXPECT_EQ(a.spans.size(), 100u);
  // The slower reader holds the room: the ring is full for both at its tail.
  for (uint64_t i = 0; i < kRingBytes / sizeof(SpanRecord) - 100; ++i) {
    ASSERT_TRUE(span(*p, t, "x", i, i + 1, 0));
  }
  EXPECT_FALSE(span(*p, t, "x", 0, 1, 0));
  strobe->drain(b);
  EXPECT_EQ(b.spans.size(), kRingBytes / sizeof(SpanRecord));
}

// A reader joining another keeps the generation (the program's threads
// keep their open spans) and skips the spans that began before it joined;
// the first reader's join, with none active, starts a new one.
TEST(Channel, ASecondReaderKeepsTheGenerationAndSkipsWhatBeganBefore) {
  auto p = make();
  auto own = reader(*p);
  auto strobe = reader(*p);
  const uint32_t before = gateGeneration(p->header()->gate.load());
  ASSERT_TRUE(own->join(kReaderInProcess, 1).ok());
  const uint32_t recording = gateGeneration(p->header()->gate.load());
  EXPECT_EQ(recording, before + 1);
  Thread t = claim(*p, 100);
  const uint64_t began = monotonicNs();
  ASSERT_TRUE(strobe->join(kReaderExternal, 2).ok());
  EXPECT_EQ(gateGeneration(p->header()->gate.load()), recording);
  const uint64_t now = monotonicNs();
  SpanRecord open_then{{kSpan, sizeof(SpanRecord), p->nameId("open then")}, began, now, 0, 0};
  SpanRecord after{{kSpan, sizeof(SpanRecord), p->nameId("after")}, now, now + 1, 0, 0};
  ASSERT_TRUE(t.w.append(&open_then, sizeof open_then, now));
  ASSERT_TRUE(t.w.append(&after, sizeof after, now));
  Collected a, b;
  own->drain(a);
  strobe->drain(b);
  EXPECT_EQ(a.names, (std::vector<std::string>{"open then", "after"}));
  EXPECT_EQ(b.names, (std::vector<std::string>{"after"}));
  EXPECT_EQ(b.spans.size(), b.names.size());
  EXPECT_EQ(strobe->stats().lost(), 0u);
  // Both gone, then one back: a new generation.
  own->leave();
  strobe->leave();
  ASSERT_TRUE(own->join(kReaderInProcess, 1).ok());
  EXPECT_EQ(gateGeneration(p->header()->gate.load()), recording + 1);
}

TEST(Channel, ASecondLiveReaderIsRefusedAStaleOneReplaced) {
  auto p = make();
  auto first = reader(*p);
  auto second = reader(*p);
  ASSERT_TRUE(first->join(kReaderExternal, 111).ok());
  Status s = second->join(kReaderExternal, 222);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the spans of process " + std::to_string(::getpid()) +
                                   " are already read by process 111");
  // The first one stops draining (strobe was killed): after kStaleReaderNs
  // another may take its place.
  p->header()->readers[kReaderExternal].heartbeat_ns.store(monotonicNs() - kStaleReaderNs - 1);
  EXPECT_TRUE(second->join(kReaderExternal, 222).ok());
}

TEST(Channel, TheProgramDropsAReaderThatStoppedDraining) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Thread t = claim(*p, 100);
  // The reader is gone (no drain since long ago) and the ring fills up.
  p->header()->readers[kReaderExternal].heartbeat_ns.store(1);
  uint64_t now = monotonicNs();
  while (span(*p, t, "x", 1, 2, 0)) {
  }
  SpanRecord r{{kSpan, sizeof r, 0}, 1, now, 0, 0};
  EXPECT_FALSE(t.w.append(&r, sizeof r, now));
  // Out of the gate: the program's spans cost one load again.
  EXPECT_EQ(gateMask(p->header()->gate.load()), 0u);
  // A reader that was only slow rejoins, and says so.
  Collected got;
  c->drain(got);
  EXPECT_EQ(c->stats().rejoined, 1u);
  EXPECT_NE(gateMask(p->header()->gate.load()), 0u);
}

TEST(Channel, ARetiredSlotIsReusedOnlyOnceDrained) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Thread t = claim(*p, 100);
  Producer::setRole(t.slot, "gone", -1);
  ASSERT_TRUE(span(*p, t, "last words", 1, 2, 0));
  Producer::retireSlot(t.slot);
  SlotHeader* next = p->claimSlot(101);
  EXPECT_NE(next, t.slot);  // undrained: not reused
  Collected got;
  c->drain(got);
  ASSERT_EQ(got.spans.size(), 1u);
  EXPECT_EQ(got.spans[0].tid, 100);
  Producer::retireSlot(next);
  SlotHeader* again = p->claimSlot(102);
  EXPECT_EQ(again, t.slot);  // the first free one, drained
  EXPECT_EQ(again->tid.load(), 102);
  EXPECT_EQ(again->role[0], '\0');
}

TEST(Channel, JoiningLaterSeesRolesSetBefore) {
  auto p = make();
  Thread t = claim(*p, 100);
  Producer::setRole(t.slot, "dispatcher", -1);
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Collected got;
  c->drain(got);
  EXPECT_EQ(got.roles[100], "dispatcher/-1");
}

TEST(Channel, DamagedRecordsAreSkippedAndCounted) {
  auto p = make();
  auto c = reader(*p);
  ASSERT_TRUE(c->join(kReaderExternal, 4242).ok());
  Thread t = claim(*p, 100);
  ASSERT_TRUE(span(*p, t, "ok", 1, 2, 0));
  Collected got;
  c->drain(got);
  // Garbage after the tail: a size that runs past the head, then a head
  // far beyond the ring (an overrun).
  uint8_t* ring = p->ringOf(t.slot);
  const uint64_t head = t.slot->head.load();
  RecordHeader bad{kSpan, 4096, 0};
  std::memcpy(ring + (head & (kRingBytes - 1)), &bad, sizeof bad);
  t.slot->head.store(head + 32);
  c->drain(got);
  EXPECT_EQ(c->stats().malformed, 1u);
  t.slot->head.store(head + 32 + 10 * uint64_t{kRingBytes});
  c->drain(got);
  EXPECT_EQ(c->stats().overrun, 10 * uint64_t{kRingBytes});
  // A span ending before it starts, an unknown kind, an unknown name id.
  uint64_t h = t.slot->head.load();
  SpanRecord backwards{{kSpan, sizeof(SpanRecord), 0}, kBase + 9, kBase + 3, 0, 0};
  RecordHeader unknown{77, 16, 0};
  SpanRecord nameless{{kSpan, sizeof(SpanRecord), 3999}, kBase + 1, kBase + 2, 0, 0};
  std::memcpy(ring + (h & (kRingBytes - 1)), &backwards, sizeof backwards);
  std::memcpy(ring + ((h + 32) & (kRingBytes - 1)), &unknown, sizeof unknown);
  std::memcpy(ring + ((h + 48) & (kRingBytes - 1)), &nameless, sizeof nameless);
  t.slot->head.store(h + 80);
  Collected more;
  c->drain(more);
  ASSERT_EQ(more.spans.size(), 1u);
  EXPECT_EQ(more.names[0], "[unknown span name]");
  EXPECT_EQ(c->stats().malformed, 3u);
}

// A channel in a memfd, as another process would hand it over.
Fd memfdWith(const void* bytes, size_t size, bool seal) {
  int fd = ::memfd_create("strobe-channel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  EXPECT_EQ(::pwrite(fd, bytes, std::min<size_t>(size, 4096), 0),
            static_cast<ssize_t>(std::min<size_t>(size, 4096)));
  if (seal) EXPECT_EQ(::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  return Fd(fd);
}

TEST(Channel, HostileChannelsAreRefused) {
  auto p = make();
  std::vector<uint8_t> header(p->base(), p->base() + kHeaderBytes);
  auto expect = [&](Result<std::unique_ptr<Consumer>> r, const std::string& message) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, message);
  };
  expect(Consumer::open(memfdWith(header.data(), kTotalBytes, false)),
         "not a span channel: not sealed against shrinking");
  expect(Consumer::open(memfdWith(header.data(), 100, true)), "not a span channel: too small");
  std::vector<uint8_t> h = header;
  std::memcpy(h.data(), "NOTACHAN", 8);
  expect(Consumer::open(memfdWith(h.data(), kTotalBytes, true)), "not a span channel: bad magic");
  h = header;
  std::memset(h.data(), 0, 8);
  expect(Consumer::open(memfdWith(h.data(), kTotalBytes, true)),
         "the span channel is not ready yet");
  h = header;
  reinterpret_cast<Header*>(h.data())->slot_count = 1'000'000;
  expect(Consumer::open(memfdWith(h.data(), kTotalBytes, true)),
         "not a span channel: inconsistent layout");
  h = header;
  reinterpret_cast<Header*>(h.data())->version = 99;
  expect(Consumer::open(memfdWith(h.data(), kTotalBytes, true)),
         "span channel version 99 is not the one this strobe reads (1)");
  // The claimed size is more than the memfd holds.
  expect(Consumer::open(memfdWith(header.data(), kTotalBytes / 2, true)),
         "not a span channel: inconsistent layout");
  // The real thing opens.
  Fd dup(::fcntl(p->fd(), F_DUPFD_CLOEXEC, 0));
  auto ok = Consumer::open(std::move(dup));
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ((*ok)->producerPid(), ::getpid());
}

TEST(Announce, AChannelReachesTheListenerWithItsSendersPid) {
  auto l = Listener::open();
  ASSERT_TRUE(l.ok()) << l.error().describe();
  EXPECT_EQ(listenerPid(l->address()), ::getpid());
  auto p = make();
  ASSERT_TRUE(announce(l->address(), p->fd()));
  auto got = l->receive();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].pid, ::getpid());
  auto c = Consumer::open(std::move(got[0].channel));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  // The program joined on strobe's behalf before announcing: adopt keeps
  // what it recorded meanwhile.
  joinReader(p->header(), kReaderExternal, ::getpid(), monotonicNs());
  Thread t = claim(*p, 100);
  ASSERT_TRUE(span(*p, t, "early", 1, 2, 0));
  ASSERT_TRUE((*c)->adopt(kReaderExternal, ::getpid()).ok());
  Collected spans;
  (*c)->drain(spans);
  ASSERT_EQ(spans.spans.size(), 1u);
  EXPECT_EQ(spans.names[0], "early");
}

TEST(Announce, NobodyListeningIsAQuickFalse) {
  auto p = make();
  uint64_t t0 = monotonicNs();
  EXPECT_FALSE(announce("@strobe-channel-1-0000000000000000", p->fd()));
  EXPECT_FALSE(announce("not an address", p->fd()));
  EXPECT_LT(monotonicNs() - t0, 1'000'000'000u);
  EXPECT_EQ(listenerPid("@strobe-channel-x-1"), 0);
  EXPECT_EQ(listenerPid("@other-12-1"), 0);
  EXPECT_EQ(listenerPid("@strobe-channel-12"), 0);
}

TEST(Announce, AChannelIsFoundInProcFd) {
  auto p = make();
  EXPECT_EQ(findChannel(::getpid()), p->fd());
}

}  // namespace
}  // namespace strobe::channel
