#include "symbolize/jitdump.hpp"

#include <byteswap.h>
#include <elf.h>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/byte_reader.hpp"

namespace strobe::symbolize {
namespace {

// No runtime writes one function's record this large; a claim of more is a
// damaged size field, not a record to wait for.
constexpr size_t kMaxRecordSize = size_t{64} << 20;
constexpr size_t kMaxHeaderSize = size_t{1} << 20;
constexpr size_t kLoadFixed = 40;    // pid, tid, vma, code_addr, code_size, code_index
constexpr size_t kMoveFixed = 48;    // pid, tid, vma, old, new, code_size, code_index
constexpr size_t kDebugFixed = 16;   // code_addr, nr_entry
constexpr size_t kUnwindFixed = 24;  // unwind_data_size, eh_frame_hdr_size, mapped_size
constexpr size_t kDebugEntryFixed = 16;

// Reads integers in the file's byte order.
class Fields {
 public:
  Fields(std::span<const uint8_t> bytes, bool swapped)
      : r_(bytes.data(), bytes.size()), swapped_(swapped) {}
  bool u32(uint32_t& v) {
    if (!r_.read(v)) return false;
    if (swapped_) v = bswap_32(v);
    return true;
  }
  bool u64(uint64_t& v) {
    if (!r_.read(v)) return false;
    if (swapped_) v = bswap_64(v);
    return true;
  }
  // A NUL-terminated string; false when no NUL comes before the end.
  bool cstr(std::string_view& s) {
    const auto* p = reinterpret_cast<const char*>(r_.cursor());
    const void* nul = std::memchr(p, 0, r_.remaining());
    if (nul == nullptr) return false;
    size_t n = static_cast<const char*>(nul) - p;
    s = std::string_view(p, n);
    return r_.skip(n + 1);
  }
  ByteReader& reader() { return r_; }

 private:
  ByteReader r_;
  bool swapped_;
};

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

const char* recordName(uint32_t id) {
  switch (static_cast<JitdumpRecordId>(id)) {
    case JitdumpRecordId::kCodeLoad:
      return "CODE_LOAD";
    case JitdumpRecordId::kCodeMove:
      return "CODE_MOVE";
    case JitdumpRecordId::kDebugInfo:
      return "CODE_DEBUG_INFO";
    case JitdumpRecordId::kClose:
      return "CODE_CLOSE";
    case JitdumpRecordId::kUnwindingInfo:
      return "CODE_UNWINDING_INFO";
  }
  return "record";
}

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void putPrefix(std::string& out, JitdumpRecordId id, size_t size, uint64_t timestamp) {
  put(out, static_cast<uint32_t>(id));
  put(out, static_cast<uint32_t>(size));
  put(out, timestamp);
}

uint32_t hostMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#else
  return EM_NONE;
#endif
}

}  // namespace

JitdumpStatus parseJitdumpHeader(std::span<const uint8_t> bytes, JitdumpHeader& out,
                                 std::string& problem) {
  uint32_t magic = 0;
  if (bytes.size() < sizeof magic) {
    problem = "the jitdump header is cut off (" + std::to_string(bytes.size()) + " bytes)";
    return JitdumpStatus::kIncomplete;
  }
  std::memcpy(&magic, bytes.data(), sizeof magic);
  if (magic != kJitdumpMagic && magic != bswap_32(kJitdumpMagic)) {
    problem = "not a jitdump file (magic " + hex32(magic) + ", expected 0x4a695444 'JiTD')";
    return JitdumpStatus::kCorrupt;
  }
  out = JitdumpHeader{};
  out.swapped = magic != kJitdumpMagic;
  if (bytes.size() < kJitdumpHeaderSize) {
    problem = "the jitdump header is cut off (" + std::to_string(bytes.size()) + " of " +
              std::to_string(kJitdumpHeaderSize) + " bytes)";
    return JitdumpStatus::kIncomplete;
  }
  Fields f(bytes, out.swapped);
  uint32_t pad = 0;
  f.u32(magic);
  f.u32(out.version);
  f.u32(out.header_size);
  f.u32(out.elf_mach);
  f.u32(pad);
  f.u32(out.pid);
  f.u64(out.timestamp);
  f.u64(out.flags);
  if (out.version == 0 || out.version > 2) {
    problem = "jitdump version " + std::to_string(out.version) + " (strobe reads versions 1 and 2)";
    return JitdumpStatus::kCorrupt;
  }
  if (out.header_size < kJitdumpHeaderSize || out.header_size > kMaxHeaderSize) {
    problem = "jitdump header size " + std::to_string(out.header_size) + " (at least " +
              std::to_string(kJitdumpHeaderSize) + ")";
    return JitdumpStatus::kCorrupt;
  }
  if (bytes.size() < out.header_size) {
    problem = "the jitdump header is cut off (" + std::to_string(bytes.size()) + " of " +
              std::to_string(out.header_size) + " bytes)";
    return JitdumpStatus::kIncomplete;
  }
  return JitdumpStatus::kOk;
}

JitdumpStatus parseJitdumpRecord(std::span<const uint8_t> bytes, bool swapped, JitdumpRecord& out,
                                 std::string& problem) {
  out = JitdumpRecord{};
  if (bytes.size() < kJitdumpPrefixSize) {
    problem = "a record is cut off (" + std::to_string(bytes.size()) + " bytes at the end)";
    return JitdumpStatus::kIncomplete;
  }
  Fields prefix(bytes, swapped);
  uint32_t size = 0;
  prefix.u32(out.id);
  prefix.u32(size);
  prefix.u64(out.timestamp);
  out.size = size;
  const std::string what = std::string(recordName(out.id)) + " (id " + std::to_string(out.id) + ")";
  if (size < kJitdumpPrefixSize || size > kMaxRecordSize) {
    problem = what + " claims " + std::to_string(size) + " bytes";
    return JitdumpStatus::kCorrupt;
  }
  if (bytes.size() < size) {
    problem = what + " is cut off (" + std::to_string(bytes.size()) + " of " +
              std::to_string(size) + " bytes)";
    return JitdumpStatus::kIncomplete;
  }
  Fields f(bytes.subspan(kJitdumpPrefixSize, size - kJitdumpPrefixSize), swapped);
  // From here on the record can be skipped by its size: what is wrong inside
  // it damages this record only.
  auto damaged = [&](std::string why) {
    out.damaged = what + std::move(why);
    out.lines.clear();
    out.code = {};
    out.name = {};
    return JitdumpStatus::kOk;
  };
  auto tooShort = [&](size_t fixed) {
    return damaged(" of " + std::to_string(size) + " bytes is shorter than its " +
                   std::to_string(kJitdumpPrefixSize + fixed) + "-byte fixed part");
  };
  switch (static_cast<JitdumpRecordId>(out.id)) {
    case JitdumpRecordId::kCodeLoad: {
      if (size < kJitdumpPrefixSize + kLoadFixed) return tooShort(kLoadFixed);
      f.u32(out.pid);
      f.u32(out.tid);
      f.u64(out.vma);
      f.u64(out.code_addr);
      f.u64(out.code_size);
      f.u64(out.code_index);
      if (!f.cstr(out.name)) return damaged(": the function name has no terminating NUL");
      // The code is the record's last code_size bytes (after the name and
      // any padding), as perf reads it.
      if (out.code_size > f.reader().remaining()) {
        return damaged(" for '" + std::string(out.name.substr(0, 80)) + "': code_size " +
                       std::to_string(out.code_size) + " exceeds the " +
                       std::to_string(f.reader().remaining()) + " bytes left in the record");
      }
      out.code = bytes.subspan(size - out.code_size, out.code_size);
      return JitdumpStatus::kOk;
    }
    case JitdumpRecordId::kCodeMove:
      if (size < kJitdumpPrefixSize + kMoveFixed) return tooShort(kMoveFixed);
      f.u32(out.pid);
      f.u32(out.tid);
      f.u64(out.vma);
      f.u64(out.code_addr);
      f.u64(out.new_code_addr);
      f.u64(out.code_size);
      f.u64(out.code_index);
      return JitdumpStatus::kOk;
    case JitdumpRecordId::kDebugInfo: {
      if (size < kJitdumpPrefixSize + kDebugFixed) return tooShort(kDebugFixed);
      uint64_t n = 0;
      f.u64(out.code_addr);
      f.u64(n);
      const size_t body = f.reader().remaining();
      // Each entry takes at least 17 bytes (its fields and a NUL).
      if (n > body / (kDebugEntryFixed + 1)) {
        return damaged(" claims " + std::to_string(n) + " entries in " + std::to_string(body) +
                       " bytes");
      }
      out.lines.reserve(n);
      std::string_view previous;
      for (uint64_t i = 0; i < n; ++i) {
        JitdumpLine l;
        if (!f.u64(l.address) || !f.u32(l.line) || !f.u32(l.discriminator) || !f.cstr(l.file)) {
          return damaged(": entry " + std::to_string(i) + " of " + std::to_string(n) +
                         " runs past the record's end");
        }
        // "\xff": the same file as the entry before (perf's JVMTI agent).
        if (l.file == "\xff") l.file = previous;
        previous = l.file;
        if (std::any_of(l.file.begin(), l.file.end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
          return damaged(": entry " + std::to_string(i) + " names a file with control characters");
        }
        out.lines.push_back(l);
      }
      // Writers pad records to 8 bytes; more left over means the entries
      // were not written as counted.
      if (f.reader().remaining() >= 8) {
        return damaged(": its " + std::to_string(n) + " entries fill " +
                       std::to_string(body - f.reader().remaining()) + " of its " +
                       std::to_string(body) + " bytes");
      }
      return JitdumpStatus::kOk;
    }
    case JitdumpRecordId::kUnwindingInfo:
      if (size < kJitdumpPrefixSize + kUnwindFixed) return tooShort(kUnwindFixed);
      return JitdumpStatus::kOk;
    case JitdumpRecordId::kClose:
      return JitdumpStatus::kOk;
  }
  return JitdumpStatus::kOk;  // an unknown record: skipped by its size
}

JitdumpFile parseJitdump(std::span<const uint8_t> bytes) {
  JitdumpFile file;
  if (parseJitdumpHeader(bytes, file.header, file.problem) != JitdumpStatus::kOk) return file;
  size_t at = file.header.header_size;
  while (at < bytes.size()) {
    JitdumpRecord r;
    std::string problem;
    JitdumpStatus st = parseJitdumpRecord(bytes.subspan(at), file.header.swapped, r, problem);
    if (st != JitdumpStatus::kOk) {
      file.problem = problem + " at offset " + std::to_string(at);
      break;
    }
    at += r.size;
    file.records.push_back(std::move(r));
  }
  return file;
}

void appendJitdumpHeader(std::string& out, uint32_t pid, uint64_t timestamp) {
  put(out, kJitdumpMagic);
  put(out, uint32_t{1});  // version
  put(out, static_cast<uint32_t>(kJitdumpHeaderSize));
  put(out, hostMachine());
  put(out, uint32_t{0});  // pad1
  put(out, pid);
  put(out, timestamp);
  put(out, uint64_t{0});  // flags: CLOCK_MONOTONIC timestamps
}

void appendJitdumpLoad(std::string& out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                       uint64_t address, std::span<const uint8_t> code, uint64_t code_index,
                       std::string_view name) {
  const size_t size = kJitdumpPrefixSize + kLoadFixed + name.size() + 1 + code.size();
  putPrefix(out, JitdumpRecordId::kCodeLoad, size, timestamp);
  put(out, pid);
  put(out, tid);
  put(out, address);  // vma
  put(out, address);  // code_addr
  put(out, static_cast<uint64_t>(code.size()));
  put(out, code_index);
  out.append(name).push_back('\0');
  out.append(reinterpret_cast<const char*>(code.data()), code.size());
}

void appendJitdumpMove(std::string& out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                       uint64_t old_address, uint64_t new_address, uint64_t code_size,
                       uint64_t code_index) {
  putPrefix(out, JitdumpRecordId::kCodeMove, kJitdumpPrefixSize + kMoveFixed, timestamp);
  put(out, pid);
  put(out, tid);
  put(out, new_address);  // vma
  put(out, old_address);
  put(out, new_address);
  put(out, code_size);
  put(out, code_index);
}

void appendJitdumpDebugInfo(std::string& out, uint64_t timestamp, uint64_t code_address,
                            std::span<const JitdumpLine> lines) {
  size_t size = kJitdumpPrefixSize + kDebugFixed;
  for (const JitdumpLine& l : lines) size += kDebugEntryFixed + l.file.size() + 1;
  putPrefix(out, JitdumpRecordId::kDebugInfo, size, timestamp);
  put(out, code_address);
  put(out, static_cast<uint64_t>(lines.size()));
  for (const JitdumpLine& l : lines) {
    put(out, l.address);
    put(out, l.line);
    put(out, l.discriminator);
    out.append(l.file).push_back('\0');
  }
}

void appendJitdumpClose(std::string& out, uint64_t timestamp) {
  putPrefix(out, JitdumpRecordId::kClose, kJitdumpPrefixSize, timestamp);
}

}  // namespace strobe::symbolize
