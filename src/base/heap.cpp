#include "base/heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace strobe {

void preferLargeHeap() {
  constexpr size_t kStep = size_t{64} << 20;       // the heap grows this much at a time
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;  // a transparent huge page
  ::mallopt(M_ARENA_MAX, 1);                       // memory freed by one thread serves all
  ::mallopt(M_MMAP_THRESHOLD, 256 << 20);          // large vectors from the heap, not fresh mmaps
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);            // nothing handed back, and faulted in again
  ::mallopt(M_TOP_PAD, static_cast<int>(kStep));
  // Grow the heap now, so the advice covers what the command will use.
  void* grow = std::malloc(size_t{8} << 20);
  if (grow == nullptr) return;
  auto start = (reinterpret_cast<uintptr_t>(grow) + kHuge - 1) & ~(kHuge - 1);
  auto top = reinterpret_cast<uintptr_t>(::sbrk(0));
  if (top > start) ::madvise(reinterpret_cast<void*>(start), top - start, MADV_HUGEPAGE);
  std::free(grow);
}

}  // namespace strobe
