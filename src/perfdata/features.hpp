// Features: what a perf.data file's feature sections (or, in pipe mode,
// its PERF_RECORD_HEADER_FEATURE and PERF_RECORD_HEADER_BUILD_ID records)
// say about the recording: where it was made (hostname, OS release, CPU),
// by which perf and command line, the build-ids of the files it sampled,
// its events' names, the time of its first and last samples, the clock and
// compression. parseFeature() reads one section's bytes; every length and
// count is checked against them, and a section that does not fit is an
// Error naming the feature (the caller warns and goes on without it).
// Owns: copies of what it read. Thread safety: none (a value type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "perfdata/events.hpp"

namespace strobe::perfdata {

// A build-id entry (HEADER_BUILD_ID): the file `path` that process `pid`
// (-1: the kernel) mapped had this build-id.
struct BuildIdEntry {
  int32_t pid = 0;
  bool kernel = false;   // a kernel image or module (PERF_RECORD_MISC_KERNEL)
  std::string build_id;  // lowercase hex
  std::string path;      // "[kernel.kallsyms]", "[vdso]", a module's or a file's path
};

struct Features {
  std::string hostname;
  std::string os_release;    // uname -r
  std::string perf_version;  // of the perf that recorded
  std::string arch;          // uname -m
  std::string cpu_desc;      // "AMD EPYC 7B13", ...
  std::string cpu_id;        // "AuthenticAMD,25,1,1"
  uint32_t cpus_online = 0;
  uint32_t cpus_available = 0;
  uint64_t total_mem_kb = 0;
  std::vector<std::string> cmdline;  // perf's own argv: "/usr/bin/perf", "record", ...
  std::vector<BuildIdEntry> build_ids;
  // HEADER_SAMPLE_TIME: the first and last sample's time (0: not written).
  uint64_t first_sample_ns = 0;
  uint64_t last_sample_ns = 0;
  // HEADER_CLOCK_DATA (perf record -k CLOCK): the sample clock's reading
  // clock_ns at the wall-clock time wall_clock_ns.
  bool has_clock_data = false;
  uint32_t clockid = 0;
  uint64_t wall_clock_ns = 0;
  uint64_t clock_ns = 0;
  // HEADER_COMPRESSED: the type (1: zstd) and level perf record -z used.
  uint32_t compression = 0;
  uint32_t compression_level = 0;
  bool tracing_data = false;   // HEADER_TRACING_DATA (tracepoint formats; not read)
  std::vector<uint32_t> read;  // the feature ids read, in file order
};

// Reads feature `id`'s section bytes into `f` (EVENT_DESC names `events`).
// Features strobe does not use are accepted and ignored.
Status parseFeature(uint32_t id, const uint8_t* bytes, size_t size, Features& f, EventList& events);

// Reads build-id entries (each a perf_event_header-sized entry) from `bytes`.
Status parseBuildIds(const uint8_t* bytes, size_t size, std::vector<BuildIdEntry>& out);

// "HOSTNAME", "BUILD_ID", ... ("feature N" for the others).
std::string featureName(uint32_t id);

}  // namespace strobe::perfdata
