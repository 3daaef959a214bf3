#include "cli/record_output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "base/log.hpp"
#include "cli/exit_codes.hpp"
#include "store/store.hpp"

namespace strobe::cli {
namespace {

// SQLite's files beside a recording in WAL mode (a killed stream's).
constexpr const char* kSideFiles[] = {"-wal", "-shm"};

// What `st` is when it is not a regular file ("a directory", ...).
const char* kindOf(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

// Renames `from` (with its side files) to `to`; false when `from` stays.
bool moveRecording(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return false;
  for (const char* suffix : kSideFiles) {
    ::unlink((to + suffix).c_str());
    (void)::rename((from + suffix).c_str(), (to + suffix).c_str());
  }
  return true;
}

void removeRecording(const std::string& path) {
  ::unlink(path.c_str());
  for (const char* suffix : kSideFiles) ::unlink((path + suffix).c_str());
}

// A new file in $TMPDIR (else /tmp) for a recording that cannot go where
// -o says: strobe-NAME-XXXXXX.db. "" when none can be made.
std::string fallbackPath(const std::string& path) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::string stem = std::filesystem::path(path).stem().string();
  std::string name = dir + "/strobe-" + (stem.empty() ? "recording" : stem) + "-XXXXXX.db";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  int fd = ::mkstemps(buf.data(), 3);
  if (fd < 0) return {};
  ::close(fd);
  return buf.data();
}

}  // namespace

bool setAsidePrevious(const std::string& path, bool& moved) {
  // Only a regular file (a recording, or anything else the user names) is
  // ever moved aside; a directory, device, FIFO or socket is refused.
  moved = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    logError("cannot write " + path + ": it is " + kindOf(st) + ", not a recording",
             S_ISDIR(st.st_mode) ? "name a file: -o " + path + "/strobe.db"
                                 : "choose another file name with -o FILE");
    return false;
  }
  const std::string old = path + ".old";
  if (struct stat lst{}; ::lstat(path.c_str(), &lst) == 0) {
    moved = moveRecording(path, old);
    if (!moved) logWarning("cannot keep the previous recording as " + old);
  }
  return true;
}

void restorePrevious(const std::string& path) {
  moveRecording(path + ".old", path);
}

std::unique_ptr<RecordOutput> RecordOutput::open(const std::string& path) {
  bool moved = false;
  if (!setAsidePrevious(path, moved)) return nullptr;
  const std::string old = path + ".old";
  auto stream = store::RecordingStream::create(path);
  if (!stream) {
    logError(stream.error());
    if (moved) moveRecording(old, path);
    return nullptr;
  }
  return std::unique_ptr<RecordOutput>(new RecordOutput(path, moved, std::move(*stream)));
}

void RecordOutput::onTick(const model::Profile& p, const record::TickInfo& t) {
  model::Meta meta = p.meta();
  meta.duration_ns = t.elapsed_ns;
  if (t.stats != nullptr) {
    meta.lost_samples = t.stats->lost;
    meta.throttle_events = t.stats->throttled;
    meta.throttled_ns = t.stats->throttled_ns;
    meta.throttle_weighted_ns = t.stats->throttle_weighted_ns;
  }
  stream_->append(p, meta);
  if (Status st = stream_->status(); !st && !warned_) {
    warned_ = true;
    logWarning(
        st.error().describe() + " (while recording)",
        "recording goes on in memory and is written when the command ends; " + st.error().hint);
  }
}

void RecordOutput::abandon() {
  stream_->discard();
  if (moved_) moveRecording(path_ + ".old", path_);
}

void RecordOutput::endStream(const model::Profile& p) {
  stream_->append(p, p.meta());
  streamed_ = stream_->finish();
}

int RecordOutput::write(const model::Profile& p) {
  // A stream that failed leaves a partial file: the disk is full, or the
  // directory is gone; the finished recording goes to the fallback.
  Status st = streamed_ ? store::writeProfile(p, path_) : streamed_;
  if (st) return 0;
  const Error& e = st.error();
  std::string fallback = fallbackPath(path_);
  Status saved = fallback.empty() ? Status(makeError("cannot create a file in $TMPDIR"))
                                  : store::writeProfile(p, fallback);
  if (saved) {
    removeRecording(path_);  // the recording is whole at the fallback
    written_to_ = fallback;
    logError(e.describe(), "the recording was saved as " + fallback + " instead; " + e.hint);
    return kExitOutput;
  }
  if (!fallback.empty()) ::unlink(fallback.c_str());
  if (streamed_) {
    // Every sample reached the streamed file; only symbols are missing.
    logError(e.describe(), "its samples are kept in " + path_ +
                               ", unsymbolized (strobe report names them while the programs are "
                               "unchanged); " +
                               e.hint);
  } else {
    logError(e.describe(), "what was recorded before writing failed is kept in " + path_ +
                               "; a copy in $TMPDIR failed too (" + saved.error().describe() +
                               "); " + e.hint);
  }
  return kExitOutput;
}

}  // namespace strobe::cli
