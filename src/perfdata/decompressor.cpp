#include "perfdata/decompressor.hpp"

#include <zstd.h>

#include <cstring>

namespace strobe::perfdata {

// Decompressed output grows by at most this much per call (a bound on what a
// malicious stream makes strobe allocate before it says anything).
constexpr size_t kOutChunk = 1 << 20;
// More decompressed bytes than this waiting for a record's end means the
// stream is not perf records.
constexpr size_t kMaxPending = 64u << 20;

struct Decompressor::Context {
  ZSTD_DStream* stream = ZSTD_createDStream();
  ~Context() { ZSTD_freeDStream(stream); }
};

Decompressor::Decompressor() : ctx_(std::make_unique<Context>()) {
  if (ctx_->stream != nullptr) ZSTD_initDStream(ctx_->stream);
}

Decompressor::~Decompressor() = default;

Status Decompressor::feed(const uint8_t* data, size_t size) {
  if (ctx_->stream == nullptr) return makeError("cannot set up zstd decompression");
  // Move the partial record left over to the front.
  if (taken_ > 0) {
    const size_t left = out_.size() - taken_;
    std::memmove(out_.data(), out_.data() + taken_, left);
    out_.resize(left);
    taken_ = 0;
  }
  ZSTD_inBuffer in{data, size, 0};
  while (in.pos < in.size) {
    if (out_.size() > kMaxPending) {
      return makeError(
          "corrupt compressed data: more than 64 MiB decompressed without a record's end", {},
          ErrorKind::kCorrupt);
    }
    const size_t used = out_.size();
    const size_t in_before = in.pos;
    out_.resize(used + kOutChunk);
    ZSTD_outBuffer out{out_.data() + used, kOutChunk, 0};
    const size_t rc = ZSTD_decompressStream(ctx_->stream, &out, &in);
    out_.resize(used + out.pos);
    total_ += out.pos;
    if (ZSTD_isError(rc) != 0) {
      return makeError(std::string("corrupt compressed data: ") + ZSTD_getErrorName(rc), {},
                       ErrorKind::kCorrupt);
    }
    if (out.pos == 0 && in.pos == in_before) break;  // no progress: wait for the next piece
  }
  return {};
}

}  // namespace strobe::perfdata
