// Where `strobe record` puts its recording, and what happens when it cannot:
//   before the command starts: -o must name a new file or a regular file
//     (then kept as FILE.old), never a directory, device, FIFO or socket,
//     and the recording must be creatable there: the stream is created
//     then, so a missing, read-only or full directory stops strobe with
//     status 6 before anything runs;
//   while recording: what was captured is streamed to FILE every 500 ms
//     (store::RecordingStream), so a killed strobe leaves a recording that
//     `strobe report` reads (incomplete, symbolized at report time);
//   at the end: the symbolized recording replaces the streamed one
//     (store::writeProfile). When that fails (a full disk), it is written to
//     $TMPDIR instead, or else the streamed FILE is kept; the error says
//     where the samples are, and record exits with status 6, not the
//     command's.
// Thread safety: onTick() runs on the recording thread, every other call on
// the thread that called open(); never both at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/profile.hpp"
#include "record/session.hpp"
#include "store/stream.hpp"

namespace strobe::cli {

// How often the recording reaches the disk while recording.
inline constexpr uint64_t kStreamIntervalNs = 500'000'000;

// Checks that `path` may take a recording (a new file or a regular one) and
// moves an existing one to PATH.old (warning when it cannot; `moved` says
// whether it did). false, with the error printed: it is not a file.
bool setAsidePrevious(const std::string& path, bool& moved);
// Puts PATH.old back as PATH (the new recording could not be written).
void restorePrevious(const std::string& path);

class RecordOutput {
 public:
  // Checks `path`, moves an existing file to PATH.old and starts the stream.
  // On failure prints the error and returns nullptr (exit with kExitOutput).
  static std::unique_ptr<RecordOutput> open(const std::string& path);

  // The recording thread's tick: streams what the Profile gained.
  void onTick(const model::Profile& p, const record::TickInfo& t);
  // The recording never started (command not found, permission, ...):
  // removes the new file and puts PATH.old back.
  void abandon();
  // Sampling has ended (meta complete): streams the rest and closes the stream.
  void endStream(const model::Profile& p);
  // Writes the finished (symbolized) recording. 0, or kExitOutput after an
  // error that says where the recording went instead.
  int write(const model::Profile& p);

  // Where the recording is after write().
  [[nodiscard]] const std::string& writtenTo() const { return written_to_; }
  [[nodiscard]] store::StreamStats streamStats() const { return stream_->stats(); }

 private:
  RecordOutput(std::string path, bool moved, std::unique_ptr<store::RecordingStream> stream)
      : path_(std::move(path)), moved_(moved), stream_(std::move(stream)), written_to_(path_) {}

  std::string path_;
  bool moved_ = false;  // an earlier file was moved to PATH.old
  std::unique_ptr<store::RecordingStream> stream_;
  Status streamed_;      // how the stream ended (endStream)
  bool warned_ = false;  // the stream's failure was reported while recording
  std::string written_to_;
};

}  // namespace strobe::cli
