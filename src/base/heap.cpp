#include "base/heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace strobe {
namespace {

// Kept, so that leak checkers see it reachable; volatile, as the blocks
// here are never used and the compiler would drop their allocation.
void* volatile reserved = nullptr;

}  // namespace

void preferLargeHeap() {
  constexpr size_t kStep = size_t{64} << 20;       // the heap grows this much at a time
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;  // a transparent huge page
  constexpr uintptr_t kHeader = 16;                // malloc's bytes before a block
  constexpr size_t kProbe = size_t{32} << 20;
  ::mallopt(M_ARENA_MAX, 1);               // memory freed by one thread serves all
  ::mallopt(M_MMAP_THRESHOLD, 256 << 20);  // large vectors from the heap, not fresh mmaps
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);    // nothing handed back, and faulted in again
  ::mallopt(M_TOP_PAD, static_cast<int>(kStep));
  // A block larger than any freed one comes from the heap's top: where the
  // command's allocations will go. It also grows the heap (M_TOP_PAD), so
  // that the advice covers what the command will use. malloc writes a
  // header just past it before the advice: that 2 MB stays in small pages,
  // so it lies past what a command usually uses.
  void* volatile probe = std::malloc(kProbe);
  if (probe == nullptr) return;
  const auto at = reinterpret_cast<uintptr_t>(probe);
  const auto start = (at + kHuge - 1) & ~(kHuge - 1);
  const auto top = reinterpret_cast<uintptr_t>(::sbrk(0));
  if (top > start) ::madvise(reinterpret_cast<void*>(start), top - start, MADV_HUGEPAGE);
  std::free(probe);
  // Below `start` the heap can only have small pages (a huge page must lie
  // wholly inside the heap's mapping). A block that fills that part, never
  // touched, makes the command's allocations start on the huge pages.
  if (start - at > kHeader) reserved = std::malloc(start - at - kHeader);
}

}  // namespace strobe
