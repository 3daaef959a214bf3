// A streaming gzip writer over a FILE* (zlib deflate, gzip wrapper).
// Owns its z_stream; does not own or close the FILE*. Thread safety: one
// thread at a time. Errors: write()/finish() return false once a write to
// the file failed (errno kept); later calls do nothing.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <string_view>
#include <vector>

namespace strobe::output {

class GzipSink {
 public:
  explicit GzipSink(std::FILE* out, int level = 6);
  ~GzipSink();
  GzipSink(const GzipSink&) = delete;
  GzipSink& operator=(const GzipSink&) = delete;

  bool write(std::string_view data);
  // Flushes the compressor and the gzip trailer; call once at the end.
  bool finish();

 private:
  bool pump(int flush);

  std::FILE* out_;
  z_stream zs_{};
  std::vector<unsigned char> buf_;
  bool ok_ = true;
};

}  // namespace strobe::output
