// Spans joined with samples. Sample and span times are the same clock
// (CLOCK_MONOTONIC, relative to the recording's start), so a sample is
// "inside" a span when it was taken on the span's own thread at a time in
// [start, end): a range query on each thread's sorted intervals.
//
//   spanTable      one row per span name (report --spans)
//   selectSpans    the spans of one name, all or the N slowest or those
//                  longer than a duration (report --span NAME ...)
//   SpanWindows    the sorted, merged intervals of some spans per thread
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

struct SpanSelection {
  std::string name;                        // the span name, exactly
  std::optional<size_t> slowest;           // only the N longest
  std::optional<uint64_t> longer_than_ns;  // only those longer than this
};

// Indices into p.spans() of the spans `s` picks, sorted by (tid, start).
std::vector<uint32_t> selectSpans(const Profile& p, const SpanSelection& s);

// Whether any span has this name.
bool hasSpanName(const Profile& p, const std::string& name);

class SpanWindows {
 public:
  SpanWindows(const Profile& p, const std::vector<uint32_t>& spans);
  // Whether a sample of thread `tid` at `time_ns` falls inside one of the spans.
  [[nodiscard]] bool contains(int32_t tid, uint64_t time_ns) const;

 private:
  std::unordered_map<int32_t, std::vector<std::pair<uint64_t, uint64_t>>> by_tid_;
};

struct SpanRow {
  std::string name;
  uint64_t count = 0;
  uint64_t total_ns = 0;  // summed durations
  uint64_t mean_ns = 0;
  uint64_t p50_ns = 0;  // nearest-rank percentiles of the durations
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
  // Samples taken inside spans of this name (each once, however the spans
  // nest) and their weight: the CPU the spans used, as sampled.
  uint64_t samples = 0;
  uint64_t weight = 0;
  std::string top_function;  // the function with the most self weight inside ("" if none)
  uint64_t top_weight = 0;
};

// One row per span name, by total duration (longest first), then name.
std::vector<SpanRow> spanTable(const Profile& p, bool fold_inline = false);

// "worker 3 (tid 4242)" for a thread with a role, "name (4242)" otherwise
// ("thread (4242)" when it has no name either): how reports title a thread.
std::string threadTitle(const Profile& p, int32_t tid);

// "worker 3" from ("worker", 3); "worker" when index < 0.
std::string roleLabel(std::string_view role, int32_t index);

}  // namespace strobe::model
