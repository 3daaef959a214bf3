#include "cpython/code_reader.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cpython/line_table.hpp"

namespace strobe::cpython {
namespace {

uint64_t u64At(const uint8_t* p, uint32_t at) {
  uint64_t v = 0;
  std::memcpy(&v, p + at, sizeof v);
  return v;
}

void appendUtf8(std::string& out, uint32_t c) {
  if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 63));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 63));
    out += static_cast<char>(0x80 | (c & 63));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 63));
    out += static_cast<char>(0x80 | ((c >> 6) & 63));
    out += static_cast<char>(0x80 | (c & 63));
  }
}

Error notCode(uint64_t address, const char* why) {
  return makeError(fmt::format("no code object at {:#x}: {}", address, why), "",
                   ErrorKind::kCorrupt);
}

}  // namespace

std::string utf8FromPython(const uint8_t* data, size_t length, unsigned kind) {
  std::string out;
  out.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    uint32_t c = 0;
    if (kind == 1) {
      c = data[i];
    } else if (kind == 2) {
      uint16_t v = 0;
      std::memcpy(&v, data + 2 * i, 2);
      c = v;
    } else {
      std::memcpy(&c, data + 4 * i, 4);
    }
    appendUtf8(out, c);
  }
  return out;
}

uint32_t CodeObject::lineAt(uint32_t offset) const {
  const uint32_t unit = offset > adaptive ? (offset - adaptive) / 2 : 0;
  const int32_t line = cpython::lineAt(line_table.data(), line_table.size(), first_line, unit);
  return line > 0 ? static_cast<uint32_t>(line) : 0;
}

Result<CodeReader::Header> CodeReader::readHeader(uint64_t address) {
  const Layout& l = in_.layout;
  uint8_t buf[512];
  const uint32_t size = l.codeHeaderSize();
  if (size > sizeof buf || size < l.code_firstlineno + 4) return notCode(address, "layout");
  if (!mem_.read(address, buf, size)) {
    return systemError(
        fmt::format("cannot read code object {:#x} of process {}", address, mem_.pid()));
  }
  Header h;
  h.type = u64At(buf, l.object_type);
  h.size = u64At(buf, l.var_size);
  h.filename = u64At(buf, l.code_filename);
  h.name = u64At(buf, l.code_name);
  h.qualname = u64At(buf, l.code_qualname);
  h.linetable = u64At(buf, l.code_linetable);
  std::memcpy(&h.first_line, buf + l.code_firstlineno, sizeof h.first_line);
  if (in_.code_type != 0 && h.type != in_.code_type) return notCode(address, "another type");
  if (h.filename == 0 || h.qualname == 0 || h.linetable == 0 || h.size > (1u << 30)) {
    return notCode(address, "implausible fields");
  }
  return h;
}

Result<std::string> CodeReader::readString(uint64_t address) {
  const Layout& l = in_.layout;
  uint8_t head[128];
  if (l.unicode_compact_size > sizeof head || !mem_.read(address, head, l.unicode_ascii_size)) {
    return systemError(fmt::format("cannot read a str at {:#x}", address));
  }
  const uint64_t length = u64At(head, l.unicode_length);
  uint32_t state = 0;
  std::memcpy(&state, head + l.unicode_state, sizeof state);
  const unsigned kind = (state >> 2) & 7;
  const bool compact = (state >> 5) & 1;
  const bool ascii = (state >> 6) & 1;
  if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1)) {
    return makeError(fmt::format("not a compact str at {:#x}", address), "", ErrorKind::kCorrupt);
  }
  const size_t chars = std::min<uint64_t>(length, kMaxNameChars);
  std::vector<uint8_t> data(chars * kind);
  const uint64_t at = address + (ascii ? l.unicode_ascii_size : l.unicode_compact_size);
  if (!mem_.read(at, data.data(), data.size())) {
    return systemError(fmt::format("cannot read a str at {:#x}", address));
  }
  return utf8FromPython(data.data(), chars, kind);
}

Result<std::vector<uint8_t>> CodeReader::readBytes(uint64_t address) {
  const Layout& l = in_.layout;
  uint64_t size = 0;
  if (!mem_.readValue(address + l.var_size, size)) {
    return systemError(fmt::format("cannot read a bytes object at {:#x}", address));
  }
  if (size > kMaxLineTableBytes) {
    return makeError(fmt::format("a line table of {} bytes at {:#x}", size, address), "",
                     ErrorKind::kCorrupt);
  }
  std::vector<uint8_t> out(size);
  if (!mem_.read(address + l.bytes_data, out.data(), out.size())) {
    return systemError(fmt::format("cannot read a bytes object at {:#x}", address));
  }
  return out;
}

Result<CodeObject> CodeReader::readCode(const Header& h) {
  CodeObject c;
  auto qualname = readString(h.qualname);
  if (!qualname) return qualname.takeError();
  auto filename = readString(h.filename);
  if (!filename) return filename.takeError();
  auto table = readBytes(h.linetable);
  if (!table) return table.takeError();
  c.qualname = std::move(*qualname);
  c.filename = std::move(*filename);
  c.line_table = std::move(*table);
  c.first_line = h.first_line;
  c.code_units = static_cast<uint32_t>(h.size);
  c.adaptive = in_.layout.code_adaptive;
  return c;
}

Result<const CodeObject*> CodeReader::code(uint64_t address) {
  auto it = cache_.find(address);
  if (it != cache_.end() && it->second.epoch == epoch_) return &it->second.code;
  auto header = readHeader(address);
  if (!header) {
    ++stats_.failures;
    if (it != cache_.end()) cache_.erase(it);
    return header.takeError();
  }
  if (it != cache_.end()) {
    ++stats_.checks;
    if (it->second.header == *header) {
      it->second.epoch = epoch_;
      return &it->second.code;
    }
    ++stats_.replaced;
    cache_.erase(it);
  }
  auto code = readCode(*header);
  if (!code) {
    ++stats_.failures;
    return code.takeError();
  }
  ++stats_.named;
  code->serial = next_serial_++;
  if (cache_.size() >= kMaxCodeObjects) cache_.clear();
  Entry& e = cache_[address];
  e.header = *header;
  e.epoch = epoch_;
  e.code = std::move(*code);
  return &e.code;
}

}  // namespace strobe::cpython
