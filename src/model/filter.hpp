// Sample filters shared by every report: a time window from the start of
// the recording, thread ids, thread names (or roles), spans (samples taken
// on a span's own thread while it was open, model/spans.hpp), and the view
// (which kinds of samples count: model/measure.hpp).
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/spans.hpp"

namespace strobe::model {

struct SampleFilter {
  std::optional<uint64_t> since_ns;   // keep samples with time >= since
  std::optional<uint64_t> until_ns;   // keep samples with time < until
  std::vector<int32_t> tids;          // keep these threads (empty: all)
  std::vector<std::string> threads;   // keep threads whose name or role matches a glob (empty: all)
  std::optional<SpanSelection> span;  // keep samples inside these spans
  View view = View::kAuto;            // keep samples of this view's kinds (kAuto: all)

  bool empty() const {
    return !since_ns && !until_ns && tids.empty() && threads.empty() && !span &&
           view == View::kAuto;
  }
};

// Whether one sample passes every filter but `span` (which needs the
// spans' windows: filterSamples applies it). Thread names and roles come
// from p.threads().
bool keepSample(const Profile& p, const SampleFilter& f, const Sample& s);

// A copy of `p` holding only the samples that pass (everything else kept),
// its view() set to f.view when that is not kAuto.
Profile filterSamples(const Profile& p, const SampleFilter& f);

}  // namespace strobe::model
