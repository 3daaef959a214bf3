// radixSort(): a stable sort of a unit's addresses (or of indexes keyed by
// them) in linear time, for painting scopes (unit_index.cpp), where
// comparison sorts of ~100,000 bounds a unit were a tenth of the build.
//
// Least-significant digit first, 11 bits a pass, on each key's offset from
// the smallest key: as many passes as the keys' span needs (two for a unit
// whose code spans under 4 MB, six at most). Few elements go to
// std::stable_sort. Thread safety: none needed (no shared state).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace strobe::symbolize {

// Sorts `v` by key(element) (a uint64_t), keeping the order of equal keys;
// `scratch` is working space (its contents are lost).
template <typename T, typename Key>
void radixSort(std::vector<T>& v, std::vector<T>& scratch, Key key) {
  if (v.size() < 256) {
    std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
    return;
  }
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  for (const T& x : v) {
    lo = std::min<uint64_t>(lo, key(x));
    hi = std::max<uint64_t>(hi, key(x));
  }
  const uint64_t span = hi - lo;
  constexpr unsigned kBits = 11;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  scratch.resize(v.size());
  for (unsigned shift = 0; shift < 64; shift += kBits) {
    std::array<uint32_t, kMask + 1> at{};
    for (const T& x : v) ++at[((key(x) - lo) >> shift) & kMask];
    uint32_t sum = 0;
    for (uint32_t& n : at) {
      const uint32_t count = n;
      n = sum;
      sum += count;
    }
    for (const T& x : v) scratch[at[((key(x) - lo) >> shift) & kMask]++] = x;
    v.swap(scratch);
    if (shift + kBits >= 64 || (span >> (shift + kBits)) == 0) break;
  }
}

}  // namespace strobe::symbolize
