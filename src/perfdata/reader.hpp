// Reader: a perf.data file, as `perf record` writes it to a file or a pipe
// (`perf record -o -`), read the way perf report reads it.
//
// open() reads the file header, the events (perf_event_attrs with their
// ids) and the feature sections (features.hpp); a pipe's come as records
// in its stream and are read by read() as they come. read() streams the
// data section through a fixed buffer, expands PERF_RECORD_COMPRESSED
// (perf record -z, zstd), takes in perf's own records (attrs, features,
// build-ids and event names of pipe mode, FINISHED_ROUND, AUX payloads to
// skip), and hands the kernel's records (SAMPLE, MMAP2, COMM, ...) to the
// sink in time order (round_queue.hpp) with the event each came from.
//
// Broken files: a file that is not a perf.data, or whose header or event
// list is unreadable, is an Error from open(). Past that nothing stops the
// reading but the data's end: a record cut off by the file's end, a corrupt
// record header, a feature section outside the file, undecompressable
// data each end the reading there (or skip that feature) with a warning that
// says where (byte offsets) and how much was read before; what was read is
// handed on. cutShort() tells whether that happened.
// Owns: the descriptor, the stream buffer, the queued records.
// Thread safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "base/result.hpp"
#include "perfdata/events.hpp"
#include "perfdata/features.hpp"

namespace strobe::perfdata {

// One kernel record, 8-byte aligned, valid during the sink's call.
struct RecordView {
  const uint8_t* bytes = nullptr;  // starts with its perf_event_header
  size_t size = 0;
  uint32_t event = 0;  // index into events()
  uint64_t time = 0;   // 0 when the record carries none
};

struct ReadStats {
  uint64_t records = 0;             // kernel records handed on
  uint64_t samples = 0;             // of those, SAMPLE records
  uint64_t rounds = 0;              // FINISHED_ROUND records
  uint64_t compressed_records = 0;  // COMPRESSED/COMPRESSED2 records
  uint64_t decompressed_bytes = 0;  // what they expanded to
  uint64_t aux_records = 0;         // AUXTRACE records (their data skipped)
  uint64_t eventless_records = 0;   // kernel records before any event (pipe mode), dropped
  uint64_t data_bytes = 0;          // bytes of the data section (or stream) read
  size_t queue_peak_bytes = 0;      // the most memory the ordering held at once
};

// Whether `head` (at least 8 bytes of a file) starts like a perf.data
// file or pipe: "PERFILE2" in either byte order.
bool looksLikePerfData(const uint8_t* head, size_t size);
// The same for a file (false when it cannot be read).
bool isPerfDataFile(const std::string& path);

class Reader {
 public:
  using Sink = std::function<void(const RecordView&)>;

  // Opens `path` ("-": standard input, a pipe's stream).
  static Result<std::unique_ptr<Reader>> open(const std::string& path);
  // Reads from `fd` (a file or a pipe); `name` names it in messages.
  static Result<std::unique_ptr<Reader>> open(Fd fd, const std::string& name);

  [[nodiscard]] bool pipeMode() const { return pipe_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  // Complete after open() for a file; a pipe's grow as read() goes.
  [[nodiscard]] const EventList& events() const { return events_; }
  [[nodiscard]] const Features& features() const { return features_; }
  // The file's size and modification time (0 for a pipe).
  [[nodiscard]] uint64_t fileSize() const { return file_size_; }
  [[nodiscard]] uint64_t modifiedNs() const { return mtime_ns_; }

  // Streams the data to `sink`; once. in_order false: as the file has them
  // (counting, without the memory the ordering takes).
  void read(const Sink& sink, bool in_order = true);

  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  [[nodiscard]] bool cutShort() const { return cut_short_; }
  [[nodiscard]] const ReadStats& stats() const { return stats_; }

  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

 private:
  Reader(Fd fd, std::string name) : fd_(std::move(fd)), name_(std::move(name)) {}
  Status openFile();
  void readFeatures(uint64_t table_offset, uint64_t bits[4]);
  struct State;
  // One record of the data (or of decompressed data, depth 1).
  void handle(State& st, const uint8_t* bytes, size_t size, int depth);
  void warn(std::string w);

  Fd fd_;
  std::string name_;
  bool pipe_ = false;
  bool seekable_ = false;
  uint64_t file_size_ = 0;
  uint64_t mtime_ns_ = 0;
  uint64_t data_offset_ = 0;
  uint64_t data_end_ = UINT64_MAX;
  EventList events_;
  Features features_;
  std::vector<std::string> warnings_;
  bool cut_short_ = false;
  ReadStats stats_;
};

}  // namespace strobe::perfdata
