#include "symbolize/jit_files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "base/fd.hpp"
#include "symbolize/jitdump.hpp"
#include "symbolize/perf_map.hpp"

namespace strobe::symbolize {
namespace {

constexpr uint64_t kMaxCodeBytes = uint64_t{256} << 20;
constexpr size_t kReadChunk = size_t{1} << 20;

// Debug-info rows waiting for their load, files owned.
struct PendingLine {
  uint64_t address;
  uint32_t line;
  std::string file;
};

}  // namespace

struct JitFiles::Followed {
  bool jitdump = false;  // else a perf map
  int32_t pid = 0;
  std::string path;
  Fd fd;
  uint64_t offset = 0;  // bytes read so far
  std::string pending;  // read, not yet parsed
  bool done = false;    // closed, corrupt or unreadable: not read again
  // jitdump state
  bool have_header = false;
  bool damaged_warned = false;  // a damaged record was reported
  JitdumpHeader header;
  std::unordered_map<uint64_t, model::JitCodeId> by_index;       // code_index -> latest entry
  std::unordered_map<uint64_t, std::vector<PendingLine>> debug;  // code_addr -> rows
};

JitFiles::JitFiles(std::string perf_map_dir) : perf_map_dir_(std::move(perf_map_dir)) {}
JitFiles::~JitFiles() = default;

void JitFiles::followJitdump(int32_t pid, const std::string& path) {
  if (!paths_.insert(path).second) return;
  auto f = std::make_unique<Followed>();
  f->jitdump = true;
  f->pid = pid;
  f->path = path;
  files_.push_back(std::move(f));
}

std::vector<std::string> JitFiles::takeWarnings() {
  return std::exchange(warnings_, {});
}

namespace {

// Appends what was written since the last read; false (with errno) on an error.
bool readNew(JitFiles::Followed& f) {
  for (;;) {
    const size_t at = f.pending.size();
    f.pending.resize(at + kReadChunk);
    ssize_t n =
        ::pread(f.fd.get(), f.pending.data() + at, kReadChunk, static_cast<off_t>(f.offset));
    if (n < 0 && errno == EINTR) {
      f.pending.resize(at);
      continue;
    }
    f.pending.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) return false;
    f.offset += static_cast<uint64_t>(n);
    if (static_cast<size_t>(n) < kReadChunk) return true;
  }
}

int64_t relative(uint64_t t, uint64_t start) {
  return t >= start ? static_cast<int64_t>(std::min<uint64_t>(t - start, INT64_MAX))
                    : -static_cast<int64_t>(std::min<uint64_t>(start - t, INT64_MAX));
}

}  // namespace

void JitFiles::poll(model::Profile& p, uint64_t now_ns) {
  const uint64_t start = p.meta().start_monotonic_ns;
  const int64_t now = relative(now_ns, start);
  // The perf map of every process with anonymous executable memory.
  for (const model::AnonRegion& r : p.anonRegions()) {
    if (!map_pids_.insert(r.pid).second) continue;
    auto f = std::make_unique<Followed>();
    f->pid = r.pid;
    f->path = perf_map_dir_ + "/perf-" + std::to_string(r.pid) + ".map";
    paths_.insert(f->path);
    files_.push_back(std::move(f));
  }
  for (auto& fp : files_) {
    Followed& f = *fp;
    if (f.done) continue;
    if (!f.fd.valid()) {
      f.fd.reset(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
      if (!f.fd.valid()) {
        // A perf map that does not exist (yet): the process names no code
        // that way. Once the process is gone, it never will.
        if (!f.jitdump && errno == ENOENT) {
          if (::kill(f.pid, 0) != 0 && errno == ESRCH) f.done = true;
          continue;
        }
        const int err = errno;
        warnings_.push_back("cannot read " + f.path + ": " + std::strerror(err) +
                            (err == ENOENT
                                 ? " (it was deleted before strobe read it: its JIT code stays "
                                   "unnamed)"
                                 : " (its JIT code stays unnamed; check the file's permissions)"));
        f.done = true;
        continue;
      }
    }
    if (!readNew(f)) {
      warnings_.push_back("cannot read " + f.path + ": " + std::strerror(errno));
      f.done = true;
      continue;
    }
    size_t pos = 0;
    auto fail = [&](const std::string& problem) {
      warnings_.push_back("stopped reading the jitdump " + f.path + ": " + problem +
                          " (JIT code it names later stays unnamed; the file is damaged or not a "
                          "jitdump)");
      f.done = true;
    };
    if (!f.jitdump) {
      // Whole lines only; a line being written waits for the next poll.
      for (size_t nl; (nl = f.pending.find('\n', pos)) != std::string::npos; pos = nl + 1) {
        auto line = parsePerfMapLine(std::string_view(f.pending).substr(pos, nl - pos));
        if (!line) continue;
        model::JitCode c;
        c.pid = f.pid;
        c.start = line->start;
        c.size = line->size;
        c.load_ns = now;
        c.name = p.internString(line->name);
        c.source = model::JitSource::kPerfMap;
        p.addJitCode(std::move(c));
      }
      f.pending.erase(0, pos);
      continue;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(f.pending.data());
    std::string problem;
    if (!f.have_header) {
      JitdumpStatus st = parseJitdumpHeader({bytes, f.pending.size()}, f.header, problem);
      if (st == JitdumpStatus::kIncomplete) continue;
      if (st == JitdumpStatus::kCorrupt) {
        fail(problem);
        continue;
      }
      f.have_header = true;
      pos = f.header.header_size;
      if ((f.header.flags & kJitdumpArchTimestamp) != 0) {
        warnings_.push_back(f.path +
                            " has TSC timestamps, not CLOCK_MONOTONIC ones: its code is named as "
                            "strobe reads it, so reused addresses may be named after the wrong "
                            "function (run the JIT without its arch-timestamp option)");
      }
    }
    const bool arch_time = (f.header.flags & kJitdumpArchTimestamp) != 0;
    while (pos < f.pending.size() && !f.done) {
      JitdumpRecord r;
      JitdumpStatus st =
          parseJitdumpRecord({bytes + pos, f.pending.size() - pos}, f.header.swapped, r, problem);
      if (st == JitdumpStatus::kIncomplete) break;
      if (st == JitdumpStatus::kCorrupt) {
        fail(problem + " at offset " + std::to_string(f.offset - f.pending.size() + pos));
        break;
      }
      const size_t record_at = f.offset - f.pending.size() + pos;
      pos += r.size;
      if (!r.damaged.empty()) {
        if (!f.damaged_warned) {
          f.damaged_warned = true;
          warnings_.push_back("skipped damaged records in the jitdump " + f.path +
                              " (the first, at offset " + std::to_string(record_at) + ": " +
                              r.damaged + "); the records around them are read");
        }
        continue;
      }
      const int64_t t = arch_time ? now : relative(r.timestamp, start);
      switch (static_cast<JitdumpRecordId>(r.id)) {
        case JitdumpRecordId::kCodeLoad: {
          model::JitCode c;
          c.pid = f.pid;
          c.start = r.code_addr;
          c.size = r.code_size;
          c.load_ns = t;
          c.name = p.internString(r.name);
          c.source = model::JitSource::kJitdump;
          if (auto d = f.debug.find(r.code_addr); d != f.debug.end()) {
            for (const PendingLine& l : d->second) {
              if (l.address < r.code_addr || l.address - r.code_addr >= r.code_size) continue;
              c.lines.push_back(
                  model::JitLine{l.address - r.code_addr, p.internString(l.file), l.line});
            }
            std::stable_sort(c.lines.begin(), c.lines.end(),
                             [](const model::JitLine& a, const model::JitLine& b) {
                               return a.offset < b.offset;
                             });
            f.debug.erase(d);
          }
          if (bytes_kept_ + r.code.size() <= kMaxCodeBytes) {
            c.bytes.assign(reinterpret_cast<const char*>(r.code.data()), r.code.size());
            bytes_kept_ += r.code.size();
          } else if (!bytes_warned_) {
            bytes_warned_ = true;
            warnings_.push_back(
                "more than 256 MiB of JIT code: the code of later functions is "
                "not kept in the recording (names and lines are)");
          }
          f.by_index[r.code_index] = p.addJitCode(std::move(c));
          break;
        }
        case JitdumpRecordId::kCodeMove: {
          auto it = f.by_index.find(r.code_index);
          if (it == f.by_index.end()) break;  // a move of code never loaded: nothing to name
          model::JitCode moved = p.jitCode()[it->second];
          p.mutableJitCode()[it->second].unload_ns = t;
          moved.start = r.new_code_addr;
          moved.load_ns = t;
          moved.unload_ns = model::kNeverUnloaded;
          it->second = p.addJitCode(std::move(moved));
          break;
        }
        case JitdumpRecordId::kDebugInfo: {
          std::vector<PendingLine>& rows = f.debug[r.code_addr];
          rows.clear();
          for (const JitdumpLine& l : r.lines) {
            rows.push_back(PendingLine{l.address, l.line, std::string(l.file)});
          }
          break;
        }
        case JitdumpRecordId::kClose:
          f.done = true;  // the runtime wrote its last record
          break;
        case JitdumpRecordId::kUnwindingInfo:
          break;
      }
    }
    f.pending.erase(0, std::min(pos, f.pending.size()));
    if (f.done) {
      f.pending.clear();
      f.pending.shrink_to_fit();
      f.fd.reset();
    }
  }
}

void JitFiles::finish(model::Profile& p, uint64_t now_ns) {
  poll(p, now_ns);
  for (const auto& f : files_) {
    if (!f->jitdump || f->done || f->pending.empty()) continue;
    warnings_.push_back("the jitdump " + f->path + " ends inside a " +
                        (f->have_header ? "record" : "header") + " (" +
                        std::to_string(f->pending.size()) +
                        " bytes left over): the runtime was stopped while writing it");
  }
}

}  // namespace strobe::symbolize
