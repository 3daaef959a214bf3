#include "import/perf_summary.hpp"

#include <algorithm>

#include "import/perf_meta.hpp"
#include "perfdata/reader.hpp"

namespace strobe::import {

Result<PerfDataSummary> summarizePerfData(const std::string& path) {
  auto reader = perfdata::Reader::open(path);
  if (!reader) return reader.takeError();
  perfdata::Reader& r = **reader;
  PerfDataSummary s;
  uint64_t first = UINT64_MAX, last = 0;
  r.read(
      [&](const perfdata::RecordView& v) {
        if (reinterpret_cast<const perf_event_header*>(v.bytes)->type != PERF_RECORD_SAMPLE) {
          return;
        }
        ++s.samples;
        if (v.time != 0) {
          first = std::min(first, v.time);
          last = std::max(last, v.time);
        }
      },
      /*in_order=*/false);
  const perfdata::Features& f = r.features();
  if (f.first_sample_ns != 0 && f.last_sample_ns >= f.first_sample_ns) {
    first = f.first_sample_ns;
    last = f.last_sample_ns;
  }
  s.duration_ns = first != UINT64_MAX && last > first ? last - first : 0;
  s.start_realtime_ns =
      startRealtime(f, first != UINT64_MAX ? first : 0, s.duration_ns, r.modifiedNs());
  PerfTarget t = perfTarget(f.cmdline);
  s.command = std::move(t.command);
  s.target = std::move(t.target);
  s.cut_short = r.cutShort();
  return s;
}

}  // namespace strobe::import
