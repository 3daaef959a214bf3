#include "output/gzip_sink.hpp"

namespace strobe::output {

GzipSink::GzipSink(std::FILE* out, int level) : out_(out), buf_(1 << 16) {
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  ok_ = deflateInit2(&zs_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

GzipSink::~GzipSink() {
  deflateEnd(&zs_);
}

bool GzipSink::pump(int flush) {
  do {
    zs_.next_out = buf_.data();
    zs_.avail_out = static_cast<uInt>(buf_.size());
    int rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) return ok_ = false;
    size_t n = buf_.size() - zs_.avail_out;
    if (n > 0 && std::fwrite(buf_.data(), 1, n, out_) != n) return ok_ = false;
  } while (zs_.avail_out == 0);
  return true;
}

bool GzipSink::write(std::string_view data) {
  if (!ok_) return false;
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs_.avail_in = static_cast<uInt>(data.size());
  return pump(Z_NO_FLUSH);
}

bool GzipSink::finish() {
  if (!ok_) return false;
  zs_.next_in = nullptr;
  zs_.avail_in = 0;
  return pump(Z_FINISH);
}

}  // namespace strobe::output
