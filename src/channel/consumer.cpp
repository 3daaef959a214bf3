#include "channel/consumer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "base/clock.hpp"
#include "channel/producer.hpp"

namespace strobe::channel {
namespace {

constexpr const char* kNotChannelHint = "the program's libstrobe and this strobe do not match";

Error corrupt(const std::string& what) {
  return makeError("not a span channel: " + what, kNotChannelHint, ErrorKind::kCorrupt);
}

bool powerOfTwo(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

struct Identity {
  uint32_t seq = 0;
  int32_t tid = 0;
  int32_t index = -1;
  char role[kRoleBytes] = {};
};

// The slot's identity under its seqlock; false when it kept changing.
bool readIdentity(const SlotHeader* s, Identity& out) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const uint32_t a = s->seq.load(std::memory_order_acquire);
    if ((a & 1) != 0) continue;
    out.tid = s->tid.load(std::memory_order_relaxed);
    out.index = s->role_index.load(std::memory_order_relaxed);
    for (size_t i = 0; i < kRoleBytes; ++i) {
      out.role[i] =
          std::atomic_ref<char>(const_cast<char&>(s->role[i])).load(std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s->seq.load(std::memory_order_relaxed) == a) {
      out.seq = a;
      out.role[kRoleBytes - 1] = '\0';
      return true;
    }
  }
  return false;
}

std::string_view roleText(const char* role, size_t cap) {
  return std::string_view(role, ::strnlen(role, cap));
}

}  // namespace

Result<std::unique_ptr<Consumer>> Consumer::open(Fd fd) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return systemError("cannot read a span channel");
  if (static_cast<uint64_t>(st.st_size) < kHeaderBytes) return corrupt("too small");
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) return corrupt("not sealed against shrinking");
  const auto size = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) return systemError("cannot map a span channel");
  Mmap map(p, size);
  auto c = fromMapping(static_cast<uint8_t*>(p), size);
  if (!c.ok()) return c;
  (*c)->map_ = std::move(map);
  (*c)->fd_ = std::move(fd);
  return c;
}

Result<std::unique_ptr<Consumer>> Consumer::borrow(void* base, size_t size) {
  return fromMapping(static_cast<uint8_t*>(base), size);
}

Result<std::unique_ptr<Consumer>> Consumer::fromMapping(uint8_t* base, size_t size) {
  // One copy of the header: the program may change it while we look.
  Header h;
  std::memcpy(static_cast<void*>(&h), base, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    bool zero = std::all_of(h.magic, h.magic + sizeof h.magic, [](char c) { return c == 0; });
    if (zero) {
      return makeError("the span channel is not ready yet", "", ErrorKind::kNotFound);
    }
    return corrupt("bad magic");
  }
  if (h.version != kVersion) {
    return makeError("span channel version " + std::to_string(h.version) +
                         " is not the one this strobe reads (" + std::to_string(kVersion) + ")",
                     "use a strobe and a libstrobe of the same version", ErrorKind::kUnsupported);
  }
  const uint64_t total = h.total_bytes;
  // Offsets within the mapping first: the sums below cannot wrap then.
  bool ok = h.header_bytes == kHeaderBytes && total <= size && h.slot_count >= 1 &&
            h.slot_count <= 65536 && powerOfTwo(h.ring_bytes) && h.ring_bytes >= 4096 &&
            h.ring_bytes <= (1U << 26) && h.slot_bytes == kSlotHeaderBytes + h.ring_bytes &&
            h.max_names <= (1U << 20) && h.name_bytes <= (1U << 26) &&
            h.names_offset >= kHeaderBytes && h.names_offset <= total && h.slots_offset <= total &&
            h.slots_offset % 8 == 0 &&
            h.names_offset + uint64_t{h.max_names} * 4 + h.name_bytes <= h.slots_offset &&
            h.slots_offset + uint64_t{h.slot_count} * h.slot_bytes <= total;
  if (!ok) return corrupt("inconsistent layout");
  std::unique_ptr<Consumer> c(new Consumer());
  c->base_ = base;
  c->slot_count_ = h.slot_count;
  c->slot_bytes_ = h.slot_bytes;
  c->ring_bytes_ = h.ring_bytes;
  c->max_names_ = h.max_names;
  c->name_bytes_ = h.name_bytes;
  c->names_offset_ = h.names_offset;
  c->slots_offset_ = h.slots_offset;
  c->producer_pid_ = h.pid;
  c->seen_.resize(h.slot_count);
  return c;
}

Consumer::~Consumer() {
  leave();
}

void Consumer::baseline(bool from_zero) {
  for (uint32_t i = 0; i < slot_count_; ++i) {
    const SlotHeader* s = slot(i);
    seen_[i].dropped = from_zero ? 0 : s->dropped.load(std::memory_order_relaxed);
    seen_[i].too_deep = from_zero ? 0 : s->too_deep.load(std::memory_order_relaxed);
    seen_[i].seq = 0;
  }
  no_slot_seen_ = from_zero ? 0 : header()->lost_no_slot.load(std::memory_order_relaxed);
}

Status Consumer::join(int reader, int32_t pid) {
  if (reader < 0 || reader >= kReaders)
    return makeError("no such span reader", "", ErrorKind::kUsage);
  Header* h = header();
  const uint64_t now = monotonicNs();
  const ReaderState& rs = h->readers[reader];
  const int32_t other = rs.pid.load(std::memory_order_relaxed);
  if ((gateMask(h->gate.load(std::memory_order_acquire)) & readerBit(reader)) != 0 && other != 0 &&
      other != pid && now < rs.heartbeat_ns.load(std::memory_order_relaxed) + kStaleReaderNs) {
    return makeError("the spans of process " + std::to_string(producer_pid_) +
                         " are already read by process " + std::to_string(other),
                     "stop the other strobe first", ErrorKind::kUsage);
  }
  baseline(false);
  joinReader(h, reader, pid, now);
  reader_ = reader;
  pid_ = pid;
  joined_ns_ = now;
  return {};
}

Status Consumer::adopt(int reader, int32_t pid) {
  if (reader < 0 || reader >= kReaders)
    return makeError("no such span reader", "", ErrorKind::kUsage);
  Header* h = header();
  if ((gateMask(h->gate.load(std::memory_order_acquire)) & readerBit(reader)) == 0 ||
      h->readers[reader].pid.load(std::memory_order_relaxed) != pid) {
    return join(reader, pid);
  }
  h->readers[reader].heartbeat_ns.store(monotonicNs(), std::memory_order_relaxed);
  baseline(true);
  reader_ = reader;
  pid_ = pid;
  return {};
}

void Consumer::leave() {
  if (reader_ < 0 || base_ == nullptr) return;
  leaveReader(header(), reader_, pid_);
  reader_ = -1;
}

std::string_view Consumer::name(uint32_t id) {
  if (id == kNoName) return "[span name table full]";
  if (id >= names_.size()) {
    const uint32_t count =
        std::min(header()->names_count.load(std::memory_order_acquire), max_names_);
    const uint8_t* offsets = base_ + names_offset_;
    const uint8_t* text = offsets + uint64_t{max_names_} * 4;
    for (auto j = static_cast<uint32_t>(names_.size()); j < count; ++j) {
      uint32_t off = 0;
      uint16_t len = 0;
      std::memcpy(&off, offsets + uint64_t{j} * 4, 4);
      if (uint64_t{off} + 2 <= name_bytes_) std::memcpy(&len, text + off, 2);
      if (uint64_t{off} + 2 + len > name_bytes_) {
        names_.emplace_back("[bad span name]");
        ++stats_.malformed;
        continue;
      }
      names_.emplace_back(reinterpret_cast<const char*>(text + off + 2), len);
    }
    if (id >= names_.size()) {
      ++stats_.malformed;
      return "[unknown span name]";
    }
  }
  return names_[id];
}

void Consumer::drainSlot(uint32_t i, Sink& sink) {
  SlotHeader* s = slot(i);
  const uint32_t state = s->state.load(std::memory_order_acquire);
  if (state == kFree) return;
  Identity id;
  if (!readIdentity(s, id)) return;  // being claimed: next time
  SlotSeen& seen = seen_[i];
  if (state == kLive && id.seq != seen.seq) {
    seen.seq = id.seq;
    if (id.role[0] != '\0') sink.role(id.tid, roleText(id.role, kRoleBytes), id.index);
  }
  const uint64_t dropped = s->dropped.load(std::memory_order_relaxed);
  const uint64_t too_deep = s->too_deep.load(std::memory_order_relaxed);
  stats_.dropped += dropped >= seen.dropped ? dropped - seen.dropped : 0;
  stats_.too_deep += too_deep >= seen.too_deep ? too_deep - seen.too_deep : 0;
  seen.dropped = dropped;
  seen.too_deep = too_deep;

  const uint64_t head = s->head.load(std::memory_order_acquire);
  uint64_t tail = s->tail[reader_].load(std::memory_order_relaxed);
  if (head == tail) return;
  if (head < tail || head - tail > ring_bytes_) {
    // Overwritten (or nonsense): nothing in between can be trusted.
    if (head > tail) stats_.overrun += head - tail;
    s->tail[reader_].store(head, std::memory_order_release);
    return;
  }
  const uint8_t* ring = reinterpret_cast<const uint8_t*>(s) + kSlotHeaderBytes;
  const uint32_t mask = ring_bytes_ - 1;
  while (tail < head) {
    const uint32_t off = static_cast<uint32_t>(tail) & mask;
    RecordHeader rh{};
    if (off + sizeof rh > ring_bytes_ || tail + sizeof rh > head) {
      ++stats_.malformed;
      break;
    }
    std::memcpy(&rh, ring + off, sizeof rh);
    if (rh.kind == kPad) {
      tail += ring_bytes_ - off;
      continue;
    }
    if (rh.size < sizeof rh || rh.size % 8 != 0 || off + rh.size > ring_bytes_ ||
        tail + rh.size > head) {
      ++stats_.malformed;
      break;
    }
    scratch_.resize(rh.size);
    std::memcpy(scratch_.data(), ring + off, rh.size);
    if (rh.kind == kSpan && rh.size >= sizeof(SpanRecord)) {
      SpanRecord r;
      std::memcpy(&r, scratch_.data(), sizeof r);
      if (r.end_ns < r.start_ns) {
        ++stats_.malformed;
      } else if (r.start_ns < joined_ns_) {
        // Began before this reader joined: another reader's.
      } else {
        sink.span(SpanEvent{id.tid, r.depth, r.start_ns, r.end_ns, name(r.h.arg)});
        ++stats_.spans;
      }
    } else if (rh.kind == kRole && rh.size >= sizeof(RoleRecord)) {
      RoleRecord r;
      std::memcpy(&r, scratch_.data(), sizeof r);
      sink.role(id.tid, roleText(r.role, kRoleBytes), static_cast<int32_t>(r.h.arg));
    }
    tail += rh.size;
  }
  s->tail[reader_].store(head, std::memory_order_release);
}

void Consumer::drain(Sink& sink) {
  if (reader_ < 0) return;
  Header* h = header();
  ReaderState& rs = h->readers[reader_];
  if ((gateMask(h->gate.load(std::memory_order_acquire)) & readerBit(reader_)) == 0 ||
      rs.pid.load(std::memory_order_relaxed) != pid_) {
    // The program presumed us gone (we did not drain for kStaleReaderNs).
    ++stats_.rejoined;
    if (!join(reader_, pid_).ok()) {
      reader_ = -1;
      return;
    }
  }
  rs.heartbeat_ns.store(monotonicNs(), std::memory_order_relaxed);
  const uint32_t used = std::min(h->slots_used.load(std::memory_order_acquire), slot_count_);
  for (uint32_t i = 0; i < used; ++i) drainSlot(i, sink);
  const uint64_t no_slot = h->lost_no_slot.load(std::memory_order_relaxed);
  stats_.no_slot += no_slot >= no_slot_seen_ ? no_slot - no_slot_seen_ : 0;
  no_slot_seen_ = no_slot;
}

}  // namespace strobe::channel
