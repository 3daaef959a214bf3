#include "perf/records.hpp"

#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "base/byte_reader.hpp"

namespace strobe::perf {
namespace {

constexpr size_t kHeaderSize = sizeof(perf_event_header);

// A ByteReader over one record that remembers the first field that did not
// fit, so a decoder reads every field and checks once at the end.
class FieldReader {
 public:
  FieldReader(const uint8_t* bytes, size_t size) : r_(bytes, size) {}

  template <typename T>
  void get(T& out) {
    if (failed_) return;
    const size_t at = r_.offset();
    if (!r_.read(out)) fail(at);
  }
  void skip(size_t n) {
    if (failed_) return;
    const size_t at = r_.offset();
    if (!r_.skip(n)) fail(at);
  }
  // The rest of the reader as a NUL-terminated, padded string.
  void rest(std::string_view& out) {
    if (!failed_) r_.cstring(r_.remaining(), out);
  }
  const uint8_t* cursor() const { return r_.cursor(); }
  size_t offset() const { return r_.offset(); }
  size_t remaining() const { return r_.remaining(); }
  bool failed() const { return failed_; }
  size_t failOffset() const { return fail_offset_; }
  void fail(size_t at) {
    if (!failed_) fail_offset_ = at;
    failed_ = true;
  }

 private:
  ByteReader r_;
  bool failed_ = false;
  size_t fail_offset_ = 0;
};

Error truncated(uint32_t type, size_t offset, size_t size) {
  return makeError("truncated " + std::string(recordTypeName(type)) +
                       " record: the field at offset " + std::to_string(offset) +
                       " does not fit in its " + std::to_string(size) + " bytes",
                   {}, ErrorKind::kCorrupt);
}

// What strobe uses from the sample_id trailer.
struct SampleId {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint32_t cpu = 0;
};

// Trailer order per linux/perf_event.h: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
SampleId readSampleId(FieldReader& r, uint64_t sample_type) {
  SampleId id;
  if (sample_type & PERF_SAMPLE_TID) {
    r.get(id.pid);
    r.get(id.tid);
  }
  if (sample_type & PERF_SAMPLE_TIME) r.get(id.time);
  if (sample_type & PERF_SAMPLE_ID) r.skip(8);
  if (sample_type & PERF_SAMPLE_STREAM_ID) r.skip(8);
  if (sample_type & PERF_SAMPLE_CPU) {
    uint32_t res = 0;
    r.get(id.cpu);
    r.get(res);
  }
  if (sample_type & PERF_SAMPLE_IDENTIFIER) r.skip(8);
  return id;
}

// PERF_SAMPLE_RAW, REGS_USER and STACK_USER, which follow the callchain
// (linux/perf_event.h, PERF_RECORD_SAMPLE).
Status decodeUserStack(FieldReader& r, uint64_t sample_type, uint64_t regs_mask, SampleRecord& s) {
  if (sample_type & PERF_SAMPLE_RAW) {
    uint32_t raw = 0;
    r.get(raw);
    r.skip(raw);
  }
  if (sample_type & PERF_SAMPLE_BRANCH_STACK) {
    return makeError("cannot decode a SAMPLE record with a branch stack and user registers", {},
                     ErrorKind::kUnsupported);
  }
  if (sample_type & PERF_SAMPLE_REGS_USER) {
    r.get(s.regs_abi);
    if (!r.failed() && s.regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
      const auto n = static_cast<uint32_t>(__builtin_popcountll(regs_mask));
      if (n > r.remaining() / 8) {
        r.fail(r.offset());
      } else {
        s.regs = reinterpret_cast<const uint64_t*>(r.cursor());
        s.regs_count = n;
        s.regs_mask = regs_mask;
        r.skip(size_t{n} * 8);
      }
    }
  }
  if (sample_type & PERF_SAMPLE_STACK_USER) {
    uint64_t size = 0;
    r.get(size);
    if (!r.failed() && size != 0) {
      if (size > r.remaining()) {
        r.fail(r.offset());
      } else {
        const uint8_t* data = r.cursor();
        r.skip(size);
        uint64_t dyn = 0;
        const size_t at = r.offset();
        r.get(dyn);
        if (!r.failed() && dyn > size) {
          return makeError("corrupt SAMPLE record: the stack's dynamic size " +
                               std::to_string(dyn) + " at offset " + std::to_string(at) +
                               " exceeds its " + std::to_string(size) + " bytes",
                           {}, ErrorKind::kCorrupt);
        }
        s.stack = data;
        s.stack_size = dyn;
      }
    }
  }
  return {};
}

Result<Record> decodeSample(const uint8_t* bytes, size_t size, uint64_t sample_type,
                            uint64_t regs_mask) {
  FieldReader r(bytes, size);
  r.skip(kHeaderSize);
  SampleRecord s;
  if (sample_type & PERF_SAMPLE_IDENTIFIER) r.skip(8);
  if (sample_type & PERF_SAMPLE_IP) r.get(s.ip);
  if (sample_type & PERF_SAMPLE_TID) {
    r.get(s.pid);
    r.get(s.tid);
  }
  if (sample_type & PERF_SAMPLE_TIME) r.get(s.time);
  if (sample_type & PERF_SAMPLE_ADDR) r.skip(8);
  if (sample_type & PERF_SAMPLE_ID) r.skip(8);
  if (sample_type & PERF_SAMPLE_STREAM_ID) r.skip(8);
  if (sample_type & PERF_SAMPLE_CPU) {
    uint32_t res = 0;
    r.get(s.cpu);
    r.get(res);
  }
  if (sample_type & PERF_SAMPLE_PERIOD) r.get(s.period);
  if (sample_type & PERF_SAMPLE_CALLCHAIN) {
    if (sample_type & PERF_SAMPLE_READ) {
      return makeError("cannot decode a SAMPLE record with PERF_SAMPLE_READ and a callchain", {},
                       ErrorKind::kUnsupported);
    }
    uint64_t nr = 0;
    r.get(nr);
    if (!r.failed()) {
      if (nr > r.remaining() / 8) {
        r.fail(r.offset());
      } else if (nr > 0) {
        if (reinterpret_cast<uintptr_t>(r.cursor()) % alignof(uint64_t) != 0) {
          return makeError("SAMPLE record bytes are not 8-byte aligned");
        }
        s.callchain = reinterpret_cast<const uint64_t*>(r.cursor());
        s.callchain_len = nr;
      }
      r.skip(nr * 8);
    }
  }
  if (sample_type & (PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) {
    if (sample_type & PERF_SAMPLE_READ) {
      return makeError("cannot decode a SAMPLE record with PERF_SAMPLE_READ and user registers", {},
                       ErrorKind::kUnsupported);
    }
    if (Status st = decodeUserStack(r, sample_type, regs_mask, s); !st) return st.takeError();
  }
  if (r.failed()) return truncated(PERF_RECORD_SAMPLE, r.failOffset(), size);
  return Record{s};
}

Result<Record> decodeMmap(uint32_t type, uint16_t misc, FieldReader& body, size_t size) {
  Mmap2Record m;
  body.get(m.pid);
  body.get(m.tid);
  body.get(m.addr);
  body.get(m.len);
  body.get(m.pgoff);
  if (type == PERF_RECORD_MMAP2) {
    if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      uint8_t res8 = 0;
      uint16_t res16 = 0;
      const size_t at = body.offset();
      body.get(m.build_id_size);
      body.get(res8);
      body.get(res16);
      body.get(m.build_id);
      if (!body.failed() && m.build_id_size > sizeof m.build_id) {
        return makeError("corrupt MMAP2 record: build_id_size " + std::to_string(m.build_id_size) +
                             " at offset " + std::to_string(at) + " exceeds 20",
                         {}, ErrorKind::kCorrupt);
      }
    } else {
      body.get(m.maj);
      body.get(m.min);
      body.get(m.ino);
      body.get(m.ino_generation);
    }
    body.get(m.prot);
    body.get(m.flags);
  }
  body.rest(m.filename);
  if (body.failed()) return truncated(type, body.failOffset(), size);
  return Record{m};
}

Result<Record> decodeOther(const perf_event_header* hdr, const uint8_t* bytes, size_t size,
                           uint64_t sample_type) {
  const uint32_t type = hdr->type;
  switch (type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES:
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      break;
    default:
      return Record{};  // a type strobe does not decode
  }
  const size_t trailer = sampleIdSize(sample_type);
  if (size < kHeaderSize + trailer) return truncated(type, kHeaderSize, size);
  const size_t body_end = size - trailer;
  FieldReader tail(bytes + body_end, trailer);
  const SampleId id = readSampleId(tail, sample_type);  // cannot fail: sized above
  FieldReader body(bytes, body_end);
  body.skip(kHeaderSize);
  auto done = [&](Record rec) -> Result<Record> {
    if (body.failed()) return truncated(type, body.failOffset(), size);
    return rec;
  };

  switch (type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: {
      auto rec = decodeMmap(type, hdr->misc, body, size);
      if (rec.ok()) std::get<Mmap2Record>(*rec).time = id.time;
      return rec;
    }
    case PERF_RECORD_COMM: {
      CommRecord c;
      body.get(c.pid);
      body.get(c.tid);
      body.rest(c.comm);
      c.exec = (hdr->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      c.time = id.time;
      return done(c);
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      TaskRecord t;
      t.is_fork = type == PERF_RECORD_FORK;
      body.get(t.pid);
      body.get(t.ppid);
      body.get(t.tid);
      body.get(t.ptid);
      body.get(t.time);
      return done(t);
    }
    case PERF_RECORD_LOST: {
      LostRecord l;
      body.get(l.id);
      body.get(l.lost);
      l.time = id.time;
      return done(l);
    }
    case PERF_RECORD_LOST_SAMPLES: {
      LostRecord l;
      body.get(l.lost);
      l.time = id.time;
      return done(l);
    }
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      SwitchRecord w;
      if (type == PERF_RECORD_SWITCH_CPU_WIDE) {
        body.get(w.next_prev_pid);
        body.get(w.next_prev_tid);
      }
      w.pid = id.pid;
      w.tid = id.tid;
      w.time = id.time;
      w.cpu = id.cpu;
      w.out = (hdr->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
      w.preempted = w.out && (hdr->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
      return done(w);
    }
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: {
      ThrottleRecord t;
      t.throttle = type == PERF_RECORD_THROTTLE;
      body.get(t.time);
      body.get(t.id);
      body.skip(8);  // stream_id
      t.pid = id.pid;
      t.tid = id.tid;
      return done(t);
    }
    default:
      return Record{};
  }
}

}  // namespace

size_t sampleIdSize(uint64_t sample_type) {
  size_t n = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                       PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER}) {
    if (sample_type & bit) n += 8;
  }
  return n;
}

std::string_view recordTypeName(uint32_t type) {
  switch (type) {
    case PERF_RECORD_MMAP:
      return "MMAP";
    case PERF_RECORD_LOST:
      return "LOST";
    case PERF_RECORD_COMM:
      return "COMM";
    case PERF_RECORD_EXIT:
      return "EXIT";
    case PERF_RECORD_THROTTLE:
      return "THROTTLE";
    case PERF_RECORD_UNTHROTTLE:
      return "UNTHROTTLE";
    case PERF_RECORD_FORK:
      return "FORK";
    case PERF_RECORD_READ:
      return "READ";
    case PERF_RECORD_SAMPLE:
      return "SAMPLE";
    case PERF_RECORD_MMAP2:
      return "MMAP2";
    case PERF_RECORD_AUX:
      return "AUX";
    case PERF_RECORD_ITRACE_START:
      return "ITRACE_START";
    case PERF_RECORD_LOST_SAMPLES:
      return "LOST_SAMPLES";
    case PERF_RECORD_SWITCH:
      return "SWITCH";
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return "SWITCH_CPU_WIDE";
    case PERF_RECORD_NAMESPACES:
      return "NAMESPACES";
    case PERF_RECORD_KSYMBOL:
      return "KSYMBOL";
    case PERF_RECORD_BPF_EVENT:
      return "BPF_EVENT";
    case PERF_RECORD_CGROUP:
      return "CGROUP";
    case PERF_RECORD_TEXT_POKE:
      return "TEXT_POKE";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return "AUX_OUTPUT_HW_ID";
    default:
      return "unknown";
  }
}

Result<Record> decodeRecord(const perf_event_header* hdr, const uint8_t* bytes, size_t size,
                            uint64_t sample_type, uint64_t regs_user_mask) {
  if (hdr == nullptr || bytes == nullptr || size < kHeaderSize) {
    return makeError(
        "truncated perf record: " + std::to_string(size) + " bytes cannot hold its 8-byte header",
        {}, ErrorKind::kCorrupt);
  }
  if (hdr->size != size) {
    return makeError("corrupt " + std::string(recordTypeName(hdr->type)) +
                         " record: its header says " + std::to_string(hdr->size) + " bytes, but " +
                         std::to_string(size) + " were given",
                     {}, ErrorKind::kCorrupt);
  }
  if (hdr->type == PERF_RECORD_SAMPLE)
    return decodeSample(bytes, size, sample_type, regs_user_mask);
  return decodeOther(hdr, bytes, size, sample_type);
}

uint64_t recordTime(const Record& record) {
  return std::visit(
      [](const auto& r) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(r)>, std::monostate>) {
          return 0;
        } else {
          return r.time;
        }
      },
      record);
}

}  // namespace strobe::perf
