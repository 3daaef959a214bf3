#include "inproc/sample_ring.hpp"

#include <algorithm>
#include <bit>

namespace strobe::inproc {

SampleRing::SampleRing(uint32_t capacity, uint32_t max_depth)
    : capacity_(std::bit_ceil(std::max<uint32_t>(capacity, 2))),
      max_depth_(std::max<uint32_t>(max_depth, 1)),
      stride_(kHeader + max_depth_),
      slots_(new uint64_t[static_cast<size_t>(capacity_) * stride_]()) {}

uint64_t SampleRing::bytesFor(uint32_t capacity, uint32_t max_depth) {
  const uint64_t slots = std::bit_ceil(std::max<uint32_t>(capacity, 2));
  return slots * (kHeader + std::max<uint32_t>(max_depth, 1)) * sizeof(uint64_t);
}

}  // namespace strobe::inproc
