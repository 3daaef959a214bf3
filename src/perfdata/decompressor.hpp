// Decompressor: the zstd stream of `perf record -z`. PERF_RECORD_COMPRESSED
// (and COMPRESSED2) records carry it in pieces; what they decompress to is
// a stream of ordinary records, one of which may continue in the next
// piece. feed() decompresses one piece and appends its bytes; the caller
// takes whole records from the front (take()) and leaves a partial one for
// the next piece.
// Owns: the zstd context and the decompressed bytes not yet taken.
// Thread safety: none. Bad input gives a kCorrupt Error, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.hpp"

namespace strobe::perfdata {

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Decompresses `size` bytes and appends the result to pending().
  Status feed(const uint8_t* data, size_t size);
  // The decompressed bytes not taken yet (8-byte aligned at the front).
  [[nodiscard]] const uint8_t* pending() const { return out_.data() + taken_; }
  [[nodiscard]] size_t pendingSize() const { return out_.size() - taken_; }
  // The first n pending bytes are used up.
  void take(size_t n) { taken_ += n; }
  [[nodiscard]] uint64_t decompressedBytes() const { return total_; }

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
  std::vector<uint8_t> out_;
  size_t taken_ = 0;
  uint64_t total_ = 0;
};

}  // namespace strobe::perfdata
