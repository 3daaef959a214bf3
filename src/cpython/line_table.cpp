#include "cpython/line_table.hpp"

namespace strobe::cpython {
namespace {

// A cursor over one table; every read is bounds-checked.
class Cursor {
 public:
  Cursor(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  [[nodiscard]] bool done() const { return pos_ >= n_; }
  // The next byte of the current entry (bit 7 clear).
  bool byte(uint8_t& b) {
    if (pos_ >= n_ || (p_[pos_] & 0x80) != 0) return false;
    b = p_[pos_++];
    return true;
  }
  bool head(uint8_t& b) {
    if (pos_ >= n_ || (p_[pos_] & 0x80) == 0) return false;
    b = p_[pos_++];
    return true;
  }
  bool varint(uint32_t& v) {
    v = 0;
    for (unsigned shift = 0;; shift += 6) {
      uint8_t b = 0;
      if (shift > 30 || !byte(b)) return false;
      v |= static_cast<uint32_t>(b & 63) << shift;
      if ((b & 64) == 0) return true;
    }
  }
  bool svarint(int32_t& v) {
    uint32_t u = 0;
    if (!varint(u)) return false;
    const auto magnitude = static_cast<int32_t>(u >> 1);
    v = (u & 1) != 0 ? -magnitude : magnitude;
    return true;
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

// Decodes entries in order, calling f(range) for each; false when malformed.
template <typename F>
bool forEachRange(const uint8_t* table, size_t size, int32_t first_line, F&& f) {
  Cursor c(table, size);
  int64_t line = first_line;
  uint32_t unit = 0;
  while (!c.done()) {
    uint8_t head = 0;
    if (!c.head(head)) return false;
    const unsigned code = (head >> 3) & 15;
    const uint32_t length = (head & 7) + 1u;
    bool located = true;
    uint8_t skip = 0;
    uint32_t u = 0;
    int32_t delta = 0;
    if (code == 15) {
      located = false;
    } else if (code == 14) {
      if (!c.svarint(delta) || !c.varint(u) || !c.varint(u) || !c.varint(u)) return false;
      line += delta;
    } else if (code == 13) {
      if (!c.svarint(delta)) return false;
      line += delta;
    } else if (code >= 10) {
      line += code - 10;
      if (!c.byte(skip) || !c.byte(skip)) return false;
    } else {
      if (!c.byte(skip)) return false;
    }
    if (line < INT32_MIN || line > INT32_MAX || unit > UINT32_MAX - length) return false;
    const int32_t at = located ? static_cast<int32_t>(line) : -1;
    if (!f(LineRange{unit, unit + length, at})) return true;
    unit += length;
  }
  return true;
}

}  // namespace

bool decodeLineTable(const uint8_t* table, size_t size, int32_t first_line,
                     std::vector<LineRange>& out) {
  return forEachRange(table, size, first_line, [&](const LineRange& r) {
    out.push_back(r);
    return true;
  });
}

int32_t lineAt(const uint8_t* table, size_t size, int32_t first_line, uint32_t unit) {
  int32_t found = -1;
  forEachRange(table, size, first_line, [&](const LineRange& r) {
    if (unit >= r.end) return true;
    if (unit >= r.start) found = r.line;
    return false;
  });
  return found;
}

}  // namespace strobe::cpython
