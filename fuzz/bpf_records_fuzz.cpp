// The records of strobe's BPF program as the BPF engine reads them from its
// ring buffer (src/bpf/records.hpp): a header and sections whose sizes and
// counts the decoder must check before trusting. The kernel program writes
// them, but a reader that trusts a size walks off its buffer on the first
// layout mistake.
//
// Input: records back to back, each read from an 8-byte aligned copy; a
// record that does not decode advances the walk by 8 bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bpf/records.hpp"

namespace {

template <typename T>
void inside(std::span<const T> s, const uint8_t* begin, const uint8_t* end) {
  const auto* b = reinterpret_cast<const uint8_t*>(s.data());
  if (s.empty()) return;
  if (b < begin || b + s.size_bytes() > end) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  std::vector<uint64_t> words((size + 7) / 8 + 1);
  auto* bytes = reinterpret_cast<uint8_t*>(words.data());
  std::memcpy(bytes, data, size);
  for (size_t at = 0; at < size;) {
    const uint8_t* rec = bytes + at;
    const size_t left = size - at;
    (void)bpf::recordTime(rec, left);
    auto r = bpf::decodeRecord(rec, left);
    if (!r) {
      at += 8;
      continue;
    }
    inside(r->kernel_stack, rec, rec + left);
    inside(r->user_stack, rec, rec + left);
    inside(r->build_id_stack, rec, rec + left);
    inside(r->regs, rec, rec + left);
    inside(r->stack, rec, rec + left);
    inside(r->runtime_frames, rec, rec + left);
    if (!r->regs.empty() && r->regs.size() != STROBE_REGS_COUNT) std::abort();
    uint32_t record_size;
    std::memcpy(&record_size, rec + 4, 4);
    if (record_size < sizeof(strobe_record) || record_size > left) std::abort();
    at += (record_size + 7) & ~size_t{7};
  }
  return 0;
}
