#include "channel/producer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace strobe::channel {
namespace {

SlotHeader* slotAt(Header* h, uint32_t i) {
  return reinterpret_cast<SlotHeader*>(reinterpret_cast<uint8_t*>(h) + h->slots_offset +
                                       uint64_t{i} * h->slot_bytes);
}

// Every active reader has read all of the slot.
bool drained(const Header* h, const SlotHeader* s) {
  const uint32_t mask = gateMask(h->gate.load(std::memory_order_acquire));
  const uint64_t head = s->head.load(std::memory_order_acquire);
  for (int r = 0; r < kReaders; ++r) {
    if ((mask & readerBit(r)) != 0 && s->tail[r].load(std::memory_order_acquire) != head) {
      return false;
    }
  }
  return true;
}

void writeIdentity(SlotHeader* s, int32_t tid, std::string_view role, int32_t index) {
  const uint32_t seq = s->seq.load(std::memory_order_relaxed);
  s->seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s->tid.store(tid, std::memory_order_relaxed);
  s->role_index.store(index, std::memory_order_relaxed);
  const size_t n = std::min<size_t>(role.size(), kRoleBytes - 1);
  for (size_t i = 0; i < kRoleBytes; ++i) {
    std::atomic_ref<char>(s->role[i]).store(i < n ? role[i] : '\0', std::memory_order_relaxed);
  }
  s->seq.store(seq + 2, std::memory_order_release);
}

}  // namespace

Result<std::unique_ptr<Producer>> Producer::create() {
  const size_t size = kTotalBytes;
  int fd = ::memfd_create(kMemfdName, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  void* p = MAP_FAILED;
  if (fd >= 0) {
    // Sealed at its size: a reader can map it without fearing SIGBUS.
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0 ||
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
      Error e = systemError("cannot size the span channel");
      ::close(fd);
      return e;
    }
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  } else {
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
  }
  if (p == MAP_FAILED) {
    Error e = systemError("cannot map the span channel");
    if (fd >= 0) ::close(fd);
    return e;
  }
  auto* base = static_cast<uint8_t*>(p);
  auto* h = reinterpret_cast<Header*>(base);
  h->version = kVersion;
  h->header_bytes = kHeaderBytes;
  h->total_bytes = size;
  h->pid = static_cast<int32_t>(::getpid());
  h->slot_count = kSlotCount;
  h->slot_bytes = kSlotHeaderBytes + kRingBytes;
  h->ring_bytes = kRingBytes;
  h->names_offset = kNamesOffset;
  h->slots_offset = kSlotsOffset;
  h->max_names = kMaxNames;
  h->name_bytes = kNameBytes;
  // The magic last: a reader that finds the memfd early sees "not ready".
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(h->magic, kMagic, sizeof kMagic);
  return std::unique_ptr<Producer>(new Producer(base, size, fd));
}

Producer::Producer(uint8_t* base, size_t size, int fd)
    : base_(base), size_(size), fd_(fd), lookup_(new Lookup[kLookupSlots]) {}

Producer::~Producer() {
  ::munmap(base_, size_);
  if (fd_ >= 0) ::close(fd_);
}

SlotHeader* Producer::claimSlot(int32_t tid) {
  Header* h = header();
  for (uint32_t i = 0; i < h->slot_count; ++i) {
    SlotHeader* s = slotAt(h, i);
    uint32_t st = s->state.load(std::memory_order_acquire);
    if (st == kLive) continue;
    if (st == kRetired && !drained(h, s)) continue;
    if (!s->state.compare_exchange_strong(st, kLive, std::memory_order_acq_rel)) continue;
    writeIdentity(s, tid, "", -1);
    uint32_t used = h->slots_used.load(std::memory_order_relaxed);
    while (used < i + 1 &&
           !h->slots_used.compare_exchange_weak(used, i + 1, std::memory_order_release)) {
    }
    return s;
  }
  return nullptr;
}

void Producer::setRole(SlotHeader* s, std::string_view role, int32_t index) {
  writeIdentity(s, s->tid.load(std::memory_order_relaxed), role, index);
}

uint32_t Producer::insertName(const char* name) {
  std::lock_guard lock(names_mu_);
  const size_t mask = kLookupSlots - 1;
  size_t i = lookupHash(name) & mask;
  for (;; i = (i + 1) & mask) {
    const char* k = lookup_[i].key.load(std::memory_order_relaxed);
    if (k == name) return lookup_[i].id.load(std::memory_order_relaxed);
    if (k == nullptr) break;
  }
  // Keep the table at most half full; past that, every new name is kNoName.
  if (lookup_used_ + 1 > kLookupSlots / 2) return kNoName;
  Header* h = header();
  uint32_t id = h->names_count.load(std::memory_order_relaxed);
  const size_t len = ::strnlen(name, kMaxNameLength);
  const uint32_t used = h->names_used.load(std::memory_order_relaxed);
  if (id >= h->max_names || used + 2 + len > h->name_bytes) {
    id = kNoName;
  } else {
    uint8_t* offsets = base_ + h->names_offset;
    uint8_t* text = offsets + size_t{h->max_names} * 4;
    const auto n = static_cast<uint16_t>(len);
    std::memcpy(text + used, &n, 2);
    std::memcpy(text + used + 2, name, len);
    std::memcpy(offsets + size_t{id} * 4, &used, 4);
    h->names_used.store(used + 2 + static_cast<uint32_t>(len), std::memory_order_relaxed);
    h->names_count.store(id + 1, std::memory_order_release);
  }
  lookup_[i].id.store(id, std::memory_order_relaxed);
  lookup_[i].key.store(name, std::memory_order_release);
  ++lookup_used_;
  return id;
}

void joinReader(Header* h, int reader, int32_t pid, uint64_t now_ns) {
  const uint32_t bit = readerBit(reader);
  h->readers[reader].pid.store(pid, std::memory_order_relaxed);
  h->readers[reader].heartbeat_ns.store(now_ns, std::memory_order_relaxed);
  for (uint32_t i = 0; i < h->slot_count; ++i) {
    SlotHeader* s = slotAt(h, i);
    s->tail[reader].store(s->head.load(std::memory_order_acquire), std::memory_order_relaxed);
  }
  uint64_t g = h->gate.load(std::memory_order_relaxed);
  uint64_t want = 0;
  do {
    // A new generation only when recording starts (no reader was active):
    // then the threads' span stacks, kept by no one, start afresh. A reader
    // joining another leaves them whole (Consumer skips what began before
    // it joined); the threads' cached ring limits stay safe, since the new
    // reader's tail is the head.
    const uint32_t generation = gateGeneration(g) + (gateMask(g) == 0 ? 1 : 0);
    want = (uint64_t{generation} << 32) | (gateMask(g) | bit);
  } while (!h->gate.compare_exchange_weak(g, want, std::memory_order_acq_rel));
}

void leaveReader(Header* h, int reader, int32_t pid) {
  if (h->readers[reader].pid.load(std::memory_order_relaxed) != pid) return;
  uint64_t g = h->gate.load(std::memory_order_relaxed);
  uint64_t want = 0;
  do {
    want = (g & ~uint64_t{0xFFFFFFFF}) | (gateMask(g) & ~readerBit(reader));
  } while (!h->gate.compare_exchange_weak(g, want, std::memory_order_acq_rel));
  h->readers[reader].pid.store(0, std::memory_order_relaxed);
}

bool SlotWriter::refresh(uint64_t end, uint64_t now_ns) {
  const uint64_t g = header_->gate.load(std::memory_order_acquire);
  const uint32_t mask = gateMask(g);
  uint64_t limit = mask == 0 ? head_ : UINT64_MAX;
  for (int r = 0; r < kReaders; ++r) {
    if ((mask & readerBit(r)) == 0) continue;
    limit = std::min(limit, slot_->tail[r].load(std::memory_order_acquire) + kRingBytes);
  }
  limit_ = limit;
  if (end <= limit_) return true;
  slot_->dropped.store(slot_->dropped.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
  // A full ring: is some reader gone? Checked at most every 100 ms.
  if (now_ns - last_stale_check_ns_ >= 100'000'000) {
    last_stale_check_ns_ = now_ns;
    for (int r = 0; r < kReaders; ++r) {
      if ((mask & readerBit(r)) == 0) continue;
      const uint64_t beat = header_->readers[r].heartbeat_ns.load(std::memory_order_relaxed);
      if (now_ns > beat + kStaleReaderNs) {
        leaveReader(header_, r, header_->readers[r].pid.load(std::memory_order_relaxed));
      }
    }
  }
  return false;
}

}  // namespace strobe::channel
