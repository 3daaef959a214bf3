// Perf ring contents as record and top drain them: a ring over memory
// (RingBuffer::overMemory, with the input's head, tail and data, so
// records wrap around its end), each record decoded for the input's
// sample_type and user-register mask, then applied to the Converter that
// builds the profile. The kernel writes rings, but a ring's records are
// the one part of a recording strobe reads before any check of its own.
//
// Input: sample_type (8 bytes), sample_regs_user (8), flags (1: bit 0
// keeps kernel frames), data_head (8), data_tail (8), then the data area.
#include <linux/perf_event.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "model/profile.hpp"
#include "perf/records.hpp"
#include "perf/ring_buffer.hpp"
#include "record/converter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  fuzz::Bytes in{data, size};
  const uint64_t sample_type = fuzz::takeInt(in, 8);
  const uint64_t regs_mask = fuzz::takeInt(in, 8);
  const uint64_t flags = fuzz::takeInt(in, 1);
  // The kernel's head, and the tail strobe stores, are multiples of 8.
  const uint64_t head = fuzz::takeInt(in, 8) & ~uint64_t{7};
  const uint64_t tail = fuzz::takeInt(in, 8) & ~uint64_t{7};

  size_t data_size = 64;
  while (data_size < in.size() && data_size < (size_t{1} << 20)) data_size *= 2;
  std::vector<uint64_t> area(data_size / 8);
  std::memcpy(area.data(), in.data(), in.size() < data_size ? in.size() : data_size);
  perf_event_mmap_page meta{};
  meta.data_head = head;
  meta.data_tail = tail;
  auto ring =
      perf::RingBuffer::overMemory(&meta, reinterpret_cast<uint8_t*>(area.data()), data_size);
  if (!ring) std::abort();

  model::Profile profile;
  record::Converter converter(profile, 0);
  converter.setKernelFrames((flags & 1) != 0);
  ring->drain([&](const perf_event_header* hdr, const uint8_t* bytes, size_t n) {
    if (n != hdr->size || n < sizeof *hdr || reinterpret_cast<uintptr_t>(bytes) % 8 != 0) {
      std::abort();  // drain's contract
    }
    auto record = perf::decodeRecord(hdr, bytes, n, sample_type, regs_mask);
    if (!record) return;
    (void)perf::recordTime(*record);
    converter.apply(*record);
  });
  // Drained up to the head: the next drain finds nothing.
  if (ring->drain([](const perf_event_header*, const uint8_t*, size_t) {}) != 0) std::abort();
  return 0;
}
