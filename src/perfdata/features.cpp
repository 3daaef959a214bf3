#include "perfdata/features.hpp"

#include <cstring>

#include "base/byte_reader.hpp"
#include "base/hex.hpp"
#include "perfdata/format.hpp"

namespace strobe::perfdata {
namespace {

constexpr size_t kMaxListItems = 1 << 20;  // far above any real command line or event list

Error bad(uint32_t id, const std::string& what) {
  return makeError("corrupt " + featureName(id) + " feature section: " + what, {},
                   ErrorKind::kCorrupt);
}

// A perf_header_string: u32 length, then that many bytes holding a
// NUL-terminated (padded) string.
bool readString(ByteReader& r, std::string& out) {
  uint32_t len = 0;
  std::string_view s;
  if (!r.read(len) || !r.cstring(len, s)) return false;
  out.assign(s);
  return true;
}

bool readStringList(ByteReader& r, std::vector<std::string>& out) {
  uint32_t nr = 0;
  if (!r.read(nr) || nr > kMaxListItems) return false;
  out.clear();
  for (uint32_t i = 0; i < nr; ++i) {
    std::string s;
    if (!readString(r, s)) return false;
    out.push_back(std::move(s));
  }
  return true;
}

Status parseEventDesc(ByteReader& r, EventList& events) {
  uint32_t nr = 0, attr_size = 0;
  if (!r.read(nr) || !r.read(attr_size)) return bad(kFeatEventDesc, "no event count");
  if (attr_size < PERF_ATTR_SIZE_VER0 || nr > kMaxListItems) {
    return bad(kFeatEventDesc, "attr size " + std::to_string(attr_size));
  }
  for (uint32_t i = 0; i < nr; ++i) {
    uint32_t nr_ids = 0;
    std::string name;
    if (!r.skip(attr_size) || !r.read(nr_ids) || !readString(r, name) ||
        nr_ids > r.remaining() / 8) {
      return bad(kFeatEventDesc, "event " + std::to_string(i) + " does not fit");
    }
    std::vector<uint64_t> ids(nr_ids);
    for (uint64_t& id : ids) (void)r.read(id);
    events.describe(i, ids, name);
  }
  return {};
}

}  // namespace

std::string featureName(uint32_t id) {
  switch (id) {
    case kFeatTracingData:
      return "TRACING_DATA";
    case kFeatBuildId:
      return "BUILD_ID";
    case kFeatHostname:
      return "HOSTNAME";
    case kFeatOsRelease:
      return "OSRELEASE";
    case kFeatVersion:
      return "VERSION";
    case kFeatArch:
      return "ARCH";
    case kFeatNrCpus:
      return "NRCPUS";
    case kFeatCpuDesc:
      return "CPUDESC";
    case kFeatCpuId:
      return "CPUID";
    case kFeatTotalMem:
      return "TOTAL_MEM";
    case kFeatCmdline:
      return "CMDLINE";
    case kFeatEventDesc:
      return "EVENT_DESC";
    case kFeatSampleTime:
      return "SAMPLE_TIME";
    case kFeatCompressed:
      return "COMPRESSED";
    case kFeatClockData:
      return "CLOCK_DATA";
    default:
      return "feature " + std::to_string(id);
  }
}

Status parseBuildIds(const uint8_t* bytes, size_t size, std::vector<BuildIdEntry>& out) {
  ByteReader r(bytes, size);
  while (r.remaining() > 0) {
    const size_t at = r.offset();
    perf_event_header h{};
    if (!r.read(h) || h.size < kBuildIdEntryFixed || h.size - sizeof h > r.remaining()) {
      return bad(kFeatBuildId, "the entry at offset " + std::to_string(at) + " does not fit");
    }
    BuildIdEntry e;
    uint8_t id[24] = {};
    std::string_view path;
    (void)r.read(e.pid);
    (void)r.read(id);
    (void)r.cstring(h.size - kBuildIdEntryFixed, path);
    size_t n = 20;
    if ((h.misc & kBuildIdSizeMisc) != 0 && id[20] <= 20) n = id[20];
    e.build_id = hexString(id, n);
    e.path.assign(path);
    const uint16_t mode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
    e.kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
    out.push_back(std::move(e));
  }
  return {};
}

Status parseFeature(uint32_t id, const uint8_t* bytes, size_t size, Features& f,
                    EventList& events) {
  ByteReader r(bytes, size);
  auto string = [&](std::string& out) -> Status {
    if (!readString(r, out)) return bad(id, "its string does not fit in " + std::to_string(size));
    return {};
  };
  f.read.push_back(id);
  switch (id) {
    case kFeatTracingData:
      f.tracing_data = true;
      return {};
    case kFeatBuildId:
      return parseBuildIds(bytes, size, f.build_ids);
    case kFeatHostname:
      return string(f.hostname);
    case kFeatOsRelease:
      return string(f.os_release);
    case kFeatVersion:
      return string(f.perf_version);
    case kFeatArch:
      return string(f.arch);
    case kFeatCpuDesc:
      return string(f.cpu_desc);
    case kFeatCpuId:
      return string(f.cpu_id);
    case kFeatNrCpus:
      if (!r.read(f.cpus_available) || !r.read(f.cpus_online)) return bad(id, "too short");
      return {};
    case kFeatTotalMem:
      if (!r.read(f.total_mem_kb)) return bad(id, "too short");
      return {};
    case kFeatCmdline:
      if (!readStringList(r, f.cmdline)) return bad(id, "its strings do not fit");
      return {};
    case kFeatEventDesc:
      return parseEventDesc(r, events);
    case kFeatSampleTime:
      if (!r.read(f.first_sample_ns) || !r.read(f.last_sample_ns)) return bad(id, "too short");
      return {};
    case kFeatClockData: {
      uint32_t version = 0;
      if (!r.read(version) || !r.read(f.clockid) || !r.read(f.wall_clock_ns) ||
          !r.read(f.clock_ns)) {
        return bad(id, "too short");
      }
      f.has_clock_data = true;
      return {};
    }
    case kFeatCompressed: {
      uint32_t version = 0;
      if (!r.read(version) || !r.read(f.compression) || !r.read(f.compression_level)) {
        return bad(id, "too short");
      }
      return {};
    }
    default:
      return {};
  }
}

}  // namespace strobe::perfdata
