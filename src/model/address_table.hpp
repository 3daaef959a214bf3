// The --by address table: self and total weight per sampled address, or per
// aligned bucket of BYTES (a power of two up to kMaxBucket, so that a bucket
// is aligned alike in the file, in the ELF file's addresses and in the
// process: those differ by multiples of the page size).
//
// A row's address is its bucket's first byte as module+0xOFFSET (the file
// offset, as unresolved frames are named; the kernel's and unmapped
// addresses as they are). Its function is the one the recording kept the
// code range of (model/code.hpp), with the offset of the bucket's first byte
// in it ("hot(int)+0x1c"); without a kept range, the location's outermost
// function alone; the address again when unsymbolized. file:line is the innermost line of
// the bucket's hottest address. Self weight goes to the leaf frame's bucket,
// total weight once per sample to every bucket on its stack (callers are
// return address - 1, inside the call instruction).
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/aggregate.hpp"
#include "model/profile.hpp"

namespace strobe::model {

inline constexpr uint64_t kMaxBucket = 4096;

// Whether BYTES may be a bucket: a power of two from 1 to kMaxBucket.
inline bool validBucket(uint64_t bytes) {
  return bytes >= 1 && bytes <= kMaxBucket && (bytes & (bytes - 1)) == 0;
}

// Rows sorted by self weight, then total, then module and address (all
// rows; callers trim). `bucket` must be validBucket().
std::vector<TopRow> addressTable(const Profile& p, std::span<const Sample> samples,
                                 uint64_t bucket);

}  // namespace strobe::model
