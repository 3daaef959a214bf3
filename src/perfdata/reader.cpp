#include "perfdata/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "base/byte_reader.hpp"
#include "perf/records.hpp"
#include "perfdata/byte_stream.hpp"
#include "perfdata/decompressor.hpp"
#include "perfdata/format.hpp"
#include "perfdata/round_queue.hpp"

namespace strobe::perfdata {
namespace {

// Bounds on what a header may make strobe read before the data.
constexpr uint64_t kMaxAttrs = 1 << 16;
constexpr uint64_t kMaxIds = 1 << 24;
constexpr uint64_t kMaxFeatureBytes = 1ULL << 30;

Result<bool> preadAll(int fd, void* buf, size_t size, uint64_t offset) {
  auto* p = static_cast<uint8_t*>(buf);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read byte " + std::to_string(offset + done));
    if (n == 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

Result<bool> readAll(int fd, void* buf, size_t size) {
  auto* p = static_cast<uint8_t*>(buf);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read");
    if (n == 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string bytesText(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

}  // namespace

bool looksLikePerfData(const uint8_t* head, size_t size) {
  if (size < 8) return false;
  const uint64_t magic = u64At(head);
  return magic == kMagic || magic == kMagicSwapped;
}

bool isPerfDataFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  uint8_t head[8];
  auto got = preadAll(fd.get(), head, sizeof head, 0);
  return got.ok() && *got && looksLikePerfData(head, sizeof head);
}

struct Reader::State {
  ByteStream* stream = nullptr;
  const Sink* sink = nullptr;
  RoundQueue queue;
  std::unique_ptr<Decompressor> decompressor;
  std::optional<bool> ordered;    // decided at the first kernel record
  std::vector<uint64_t> scratch;  // an aligned copy of a misaligned record
  uint64_t offset = 0;            // of the record being handled (messages)
  bool warned_aux = false;
  bool stop = false;  // a record inside decompressed data could not be read
};

Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::open(const std::string& path) {
  if (path == "-") {
    Fd in(::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0));
    if (!in.valid()) return systemError("cannot read standard input");
    return open(std::move(in), "standard input");
  }
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return systemError("cannot open " + path, "check the path and its permissions",
                       errno == ENOENT ? ErrorKind::kNotFound : ErrorKind::kGeneric);
  }
  return open(std::move(fd), path);
}

Result<std::unique_ptr<Reader>> Reader::open(Fd fd, const std::string& name) {
  std::unique_ptr<Reader> r(new Reader(std::move(fd), name));
  struct stat st {};
  if (::fstat(r->fd_.get(), &st) == 0 && S_ISREG(st.st_mode)) {
    r->seekable_ = true;
    r->file_size_ = static_cast<uint64_t>(st.st_size);
    r->mtime_ns_ = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000ULL +
                   static_cast<uint64_t>(st.st_mtim.tv_nsec);
  }
  PipeHeader head;
  auto got = r->seekable_ ? preadAll(r->fd_.get(), &head, sizeof head, 0)
                          : readAll(r->fd_.get(), &head, sizeof head);
  if (!got) {
    Error e = got.takeError();
    e.message = name + ": " + e.message;
    return e;
  }
  if (!*got || (head.magic != kMagic && head.magic != kMagicSwapped)) {
    return makeError(name + " is not a perf.data file (no PERFILE2 magic)",
                     "give a recording of strobe record or perf record", ErrorKind::kCorrupt);
  }
  if (head.magic == kMagicSwapped) {
    return makeError(name + " was recorded on a machine of the other byte order",
                     "report it with perf on such a machine", ErrorKind::kUnsupported);
  }
  if (head.size == sizeof(PipeHeader)) {
    r->pipe_ = true;
    r->data_offset_ = sizeof(PipeHeader);
    return r;
  }
  if (!r->seekable_) {
    return makeError(
        name + " is a perf.data file, not a pipe's stream, and cannot be read from a pipe",
        "give its path", ErrorKind::kUsage);
  }
  if (Status s = r->openFile(); !s) return s.takeError();
  return r;
}

Status Reader::openFile() {
  FileHeader h;
  auto got = preadAll(fd_.get(), &h, sizeof h, 0);
  if (!got) return got.takeError();
  if (!*got || h.size < sizeof h) {
    return makeError(
        name_ + ": the perf.data header is cut off (" + bytesText(file_size_) + " in the file)", {},
        ErrorKind::kCorrupt);
  }
  // Events: attr_size bytes each, a perf_event_attr and where its ids are.
  if (h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(FileSection) || h.attrs.size % h.attr_size != 0 ||
      h.attrs.size / h.attr_size > kMaxAttrs || h.attrs.offset > file_size_ ||
      h.attrs.size > file_size_ - h.attrs.offset) {
    return makeError(name_ + ": corrupt perf.data header: its event list (" +
                         bytesText(h.attrs.size) + " at byte " + std::to_string(h.attrs.offset) +
                         ", " + bytesText(h.attr_size) + " each) does not fit in the file's " +
                         bytesText(file_size_),
                     {}, ErrorKind::kCorrupt);
  }
  std::vector<uint8_t> attrs(h.attrs.size);
  if (auto a = preadAll(fd_.get(), attrs.data(), attrs.size(), h.attrs.offset); !a || !*a) {
    return makeError(name_ + ": cannot read its event list", {}, ErrorKind::kCorrupt);
  }
  const size_t attr_bytes = h.attr_size - sizeof(FileSection);
  for (size_t at = 0; at < attrs.size(); at += h.attr_size) {
    FileSection ids_at;
    std::memcpy(&ids_at, attrs.data() + at + attr_bytes, sizeof ids_at);
    std::vector<uint64_t> ids;
    if (ids_at.size % 8 == 0 && ids_at.size / 8 <= kMaxIds && ids_at.offset <= file_size_ &&
        ids_at.size <= file_size_ - ids_at.offset) {
      ids.resize(ids_at.size / 8);
      if (auto r = preadAll(fd_.get(), ids.data(), ids_at.size, ids_at.offset); !r || !*r) {
        ids.clear();
      }
    } else {
      warn("the ids of event " + std::to_string(at / h.attr_size) + " lie outside the file");
    }
    size_t index = 0;
    if (!events_.add(attrs.data() + at, attr_bytes, std::move(ids), index)) {
      return makeError(name_ + ": corrupt perf.data header: an event's attributes are too short",
                       {}, ErrorKind::kCorrupt);
    }
  }
  data_offset_ = h.data.offset;
  const uint64_t data_size = h.data.size;
  if (data_offset_ > file_size_) {
    return makeError(name_ + ": corrupt perf.data header: its data starts at byte " +
                         std::to_string(data_offset_) + ", past the file's end (" +
                         bytesText(file_size_) + ")",
                     {}, ErrorKind::kCorrupt);
  }
  if (data_size == 0 && file_size_ > data_offset_) {
    // perf record writes the data's size at its end: it did not get there.
    cut_short_ = true;
    warn("the header says the data is empty, but the file holds " +
         bytesText(file_size_ - data_offset_) +
         " after it: perf record did not finish (killed?); reading to the file's end");
    data_end_ = file_size_;
    return {};
  }
  if (data_size > file_size_ - data_offset_) {
    cut_short_ = true;
    warn("the file is cut off: its data should end at byte " +
         std::to_string(data_offset_ + data_size) + " but the file has " + bytesText(file_size_) +
         "; reading what is there");
    data_end_ = file_size_;
    return {};
  }
  data_end_ = data_offset_ + data_size;
  readFeatures(data_end_, h.features);
  return {};
}

void Reader::readFeatures(uint64_t table_offset, uint64_t bits[4]) {
  std::vector<uint32_t> ids;
  for (uint32_t feat = 1; feat < kFeatBits; ++feat) {
    if ((bits[feat / 64] >> (feat % 64)) & 1) ids.push_back(feat);
  }
  if (ids.empty()) return;
  std::vector<FileSection> table(ids.size());
  const uint64_t table_bytes = table.size() * sizeof(FileSection);
  auto got = table_offset <= file_size_ && table_bytes <= file_size_ - table_offset
                 ? preadAll(fd_.get(), table.data(), table_bytes, table_offset)
                 : Result<bool>(false);
  if (!got || !*got) {
    cut_short_ = true;
    warn("the file is cut off before its feature sections (at byte " +
         std::to_string(table_offset) + "): no hostname, command line or build-ids");
    return;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const FileSection& s = table[i];
    if (s.offset > file_size_ || s.size > file_size_ - s.offset || s.size > kMaxFeatureBytes) {
      warn("its " + featureName(ids[i]) + " feature section (" + bytesText(s.size) + " at byte " +
           std::to_string(s.offset) + ") lies outside the file: left out");
      cut_short_ = true;
      continue;
    }
    std::vector<uint8_t> bytes(s.size);
    if (auto r = preadAll(fd_.get(), bytes.data(), bytes.size(), s.offset); !r || !*r) {
      warn("cannot read its " + featureName(ids[i]) + " feature section: left out");
      continue;
    }
    if (Status st = parseFeature(ids[i], bytes.data(), bytes.size(), features_, events_); !st) {
      warn(st.error().message + " (at byte " + std::to_string(s.offset) + "): left out");
    }
  }
}

void Reader::warn(std::string w) {
  warnings_.push_back(name_ + ": " + std::move(w));
}

void Reader::read(const Sink& sink, bool in_order) {
  ByteStream stream(fd_.get(), seekable_, data_offset_, seekable_ ? data_end_ : UINT64_MAX);
  State st;
  if (!in_order) st.ordered = false;
  st.stream = &stream;
  st.sink = &sink;
  const uint64_t start = stream.offset();
  for (;;) {
    auto head = stream.fill(sizeof(perf_event_header));
    if (!head) {
      cut_short_ = true;
      warn(head.error().describe() + ": reading stopped there");
      break;
    }
    if (!*head) {
      if (stream.available() != 0) {
        cut_short_ = true;
        warn("the data ends inside a record header at byte " + std::to_string(stream.offset()) +
             ": the file is cut off");
      }
      break;
    }
    perf_event_header h;
    std::memcpy(&h, stream.data(), sizeof h);
    st.offset = stream.offset();
    if (h.size < sizeof h) {
      cut_short_ = true;
      warn("corrupt record at byte " + std::to_string(st.offset) + ": its header says " +
           bytesText(h.size) + " (type " + std::to_string(h.type) + "); reading stopped there");
      break;
    }
    auto body = stream.fill(h.size);
    if (!body || !*body) {
      cut_short_ = true;
      warn("the " + std::string(perf::recordTypeName(h.type)) + " record at byte " +
           std::to_string(st.offset) + " (" + bytesText(h.size) +
           ") is cut off by the end of the data: the file is cut off there");
      break;
    }
    handle(st, stream.data(), h.size, 0);
    stream.consume(h.size);
    if (st.stop) break;
    // Payloads that follow their record.
    uint64_t follow = 0;
    if (h.type == kRecordAuxtrace && h.size >= 16) follow = u64At(stream.data() - h.size + 8);
    if (h.type == kRecordHeaderTracingData && h.size >= 12) {
      uint32_t n = 0;
      std::memcpy(&n, stream.data() - h.size + 8, sizeof n);
      follow = (uint64_t{n} + 7) & ~uint64_t{7};
    }
    if (follow != 0) {
      auto skipped = stream.skip(follow);
      if (!skipped || !*skipped) {
        cut_short_ = true;
        warn("the data that follows the record at byte " + std::to_string(st.offset) + " (" +
             bytesText(follow) + ") is cut off by the end of the data");
        break;
      }
    }
  }
  stats_.data_bytes = stream.offset() - start;
  auto deliver = [&](const uint8_t* bytes, size_t size, uint32_t event, uint64_t time) {
    sink(RecordView{bytes, size, event, time});
  };
  st.queue.flushAll(deliver);
  stats_.queue_peak_bytes = st.queue.peakBytes();
  if (st.decompressor) stats_.decompressed_bytes = st.decompressor->decompressedBytes();
}

void Reader::handle(State& st, const uint8_t* bytes, size_t size, int depth) {
  perf_event_header h;
  std::memcpy(&h, bytes, sizeof h);
  auto deliver = [&](const uint8_t* b, size_t n, uint32_t event, uint64_t time) {
    (*st.sink)(RecordView{b, n, event, time});
  };
  if (h.type < kRecordHeaderAttr) {
    if (events_.empty()) {
      ++stats_.eventless_records;
      return;
    }
    if (!st.ordered) st.ordered = events_.timed();
    const uint32_t event = events_.eventOf(bytes, size);
    const uint64_t time = events_.timeOf(event, bytes, size);
    ++stats_.records;
    if (h.type == PERF_RECORD_SAMPLE) ++stats_.samples;
    if (*st.ordered) {
      st.queue.push(time, event, bytes, size);
      return;
    }
    if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) {
      st.scratch.resize((size + 7) / 8);
      std::memcpy(st.scratch.data(), bytes, size);
      bytes = reinterpret_cast<const uint8_t*>(st.scratch.data());
    }
    deliver(bytes, size, event, time);
    return;
  }
  ByteReader body(bytes + sizeof h, size - sizeof h);
  switch (h.type) {
    case kRecordHeaderAttr: {
      // The attr (its own size field says how long), then the ids.
      uint32_t attr_size = 0;
      if (size >= sizeof h + 8) std::memcpy(&attr_size, bytes + sizeof h + 4, sizeof attr_size);
      if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
      if (attr_size > size - sizeof h) {
        warn("corrupt HEADER_ATTR record at byte " + std::to_string(st.offset) + ": left out");
        return;
      }
      std::vector<uint64_t> ids((size - sizeof h - attr_size) / 8);
      if (!ids.empty()) std::memcpy(ids.data(), bytes + sizeof h + attr_size, ids.size() * 8);
      size_t index = 0;
      (void)events_.add(bytes + sizeof h, attr_size, std::move(ids), index);
      return;
    }
    case kRecordHeaderBuildId:
      if (Status s = parseBuildIds(bytes, size, features_.build_ids); !s) {
        warn("corrupt HEADER_BUILD_ID record at byte " + std::to_string(st.offset) + ": left out");
      }
      return;
    case kRecordHeaderFeature: {
      uint64_t feat = 0;
      if (!body.read(feat) || feat >= kFeatBits) return;
      Status s = parseFeature(static_cast<uint32_t>(feat), body.cursor(), body.remaining(),
                              features_, events_);
      if (!s) warn(s.error().message + " (at byte " + std::to_string(st.offset) + "): left out");
      return;
    }
    case kRecordEventUpdate: {
      uint64_t type = 0, id = 0;
      std::string_view name;
      if (body.read(type) && body.read(id) && type == kEventUpdateName &&
          body.cstring(body.remaining(), name)) {
        events_.nameById(id, std::string(name));
      }
      return;
    }
    case kRecordFinishedRound:
      ++stats_.rounds;
      st.queue.finishRound(deliver);
      return;
    case kRecordAuxtrace:
      ++stats_.aux_records;
      if (!st.warned_aux) {
        st.warned_aux = true;
        warn("it holds AUX area trace data (Intel PT, ARM SPE, ...), which strobe does not decode");
      }
      return;
    case kRecordCompressed:
    case kRecordCompressed2: {
      if (depth > 0) return;  // perf never compresses compressed records
      ++stats_.compressed_records;
      size_t from = sizeof h;
      size_t len = size - sizeof h;
      if (h.type == kRecordCompressed2) {
        uint64_t data_size = 0;
        if (!body.read(data_size) || data_size > body.remaining()) {
          cut_short_ = st.stop = true;
          warn("corrupt COMPRESSED2 record at byte " + std::to_string(st.offset) +
               ": reading stopped there");
          return;
        }
        from += 8;
        len = static_cast<size_t>(data_size);
      }
      if (!st.decompressor) st.decompressor = std::make_unique<Decompressor>();
      Decompressor& d = *st.decompressor;
      if (Status s = d.feed(bytes + from, len); !s) {
        cut_short_ = st.stop = true;
        warn(s.error().message + " in the record at byte " + std::to_string(st.offset) +
             ": reading stopped there");
        return;
      }
      while (d.pendingSize() >= sizeof(perf_event_header)) {
        perf_event_header inner;
        std::memcpy(&inner, d.pending(), sizeof inner);
        if (inner.size < sizeof inner) {
          cut_short_ = st.stop = true;
          warn("corrupt record in the compressed data of the record at byte " +
               std::to_string(st.offset) + ": reading stopped there");
          return;
        }
        if (d.pendingSize() < inner.size) break;  // continues in the next piece
        handle(st, d.pending(), inner.size, depth + 1);
        d.take(inner.size);
      }
      return;
    }
    default:
      return;  // EVENT_TYPE, ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV, STAT, ...
  }
}

}  // namespace strobe::perfdata
