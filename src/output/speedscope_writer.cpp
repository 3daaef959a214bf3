#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <vector>

#include "model/measure.hpp"
#include "output/frame_table.hpp"
#include "output/json_writers.hpp"
#include "output/table_fields.hpp"
#include "output/thread_order.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

}  // namespace

Status writeSpeedscope(const model::Profile& p, bool no_inline, const std::string& name,
                       std::FILE* out) {
  FrameTable table(p, no_inline);

  const std::map<int32_t, std::vector<uint32_t>> per_thread = samplesByThread(p);
  // speedscope opens the profile activeProfileIndex names: the busiest
  // thread (the most weight; the first of equals).
  size_t busiest = 0;
  {
    uint64_t most = 0;
    size_t k = 0;
    for (const auto& [tid, idx] : per_thread) {
      uint64_t w = 0;
      for (uint32_t i : idx) w += p.samples()[i].weight;
      if (w > most) {
        most = w;
        busiest = k;
      }
      ++k;
    }
  }

  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.StartObject();
  w.Key("$schema");
  w.String("https://www.speedscope.app/file-format-schema.json");
  w.Key("exporter");
  jsonString(w, "strobe " + p.meta().strobe_version);
  // Weights are in the view's unit (model/measure.hpp): nanoseconds of
  // CPU, off-CPU or wall time, or counts of an event ("none").
  const model::Measure measure = model::measureOf(p);
  w.Key("name");
  jsonString(w, measure.view == model::View::kCpu
                    ? name
                    : name + " (" + std::string(model::viewName(measure.view)) + ")");
  w.Key("activeProfileIndex");
  w.Uint64(busiest);
  // The session's start on both clocks (speedscope ignores keys it does not
  // know): line the profile up with the program's own logs.
  w.Key("strobe_start_monotonic_ns");
  w.Uint64(p.meta().start_monotonic_ns);
  w.Key("strobe_start_realtime_ns");
  w.Uint64(p.meta().start_realtime_ns);
  w.Key("shared");
  w.StartObject();
  w.Key("frames");
  w.StartArray();
  for (const model::Frame& f : table.frames()) {
    w.StartObject();
    w.Key("name");
    jsonString(w, frameLabel(p, f));
    if (f.line != nullptr) {
      const model::Function& fn = p.functions()[f.line->function];
      if (fn.file != model::kEmptyString) {
        w.Key("file");
        jsonString(w, p.str(fn.file));
      }
      if (fn.start_line != 0) {
        w.Key("line");
        w.Uint(fn.start_line);
      }
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();

  w.Key("profiles");
  w.StartArray();
  // Each thread's samples in time order, weighted by what they counted
  // (ns of the view's time), with the time the thread was not sampled in
  // between as samples with an empty stack: speedscope lays samples end to
  // end, so its time axis is then the recording's wall time, the same for
  // every thread, and frames still weigh exactly their time. Counts of an
  // event have no time axis to fill: their profiles are the samples only.
  const bool fill = measure.time();
  std::vector<uint32_t> stack;
  std::vector<uint64_t> weights;
  const uint64_t duration = p.meta().duration_ns;
  for (const auto& [tid, idx] : per_thread) {
    w.StartObject();
    w.Key("type");
    w.String("sampled");
    w.Key("name");
    jsonString(w, threadLabel(p, tid));
    w.Key("unit");
    w.String(measure.time() ? "nanoseconds" : "none");
    w.Key("startValue");
    w.Uint64(0);
    w.Key("samples");
    w.StartArray();
    weights.clear();
    uint64_t at = 0;  // where the next sample starts on the time axis
    for (uint32_t i : idx) {
      const model::Sample& s = p.samples()[i];
      if (fill && s.time_ns > at) {
        w.StartArray();  // not sampled: idle, or running unsampled
        w.EndArray();
        weights.push_back(s.time_ns - at);
        at = s.time_ns;
      }
      stack.clear();
      table.appendLeafFirst(p, s.stack, stack);
      w.StartArray();
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) w.Uint(*it);
      w.EndArray();
      weights.push_back(s.weight);
      at += s.weight;
    }
    if (fill && duration > at) {
      w.StartArray();
      w.EndArray();
      weights.push_back(duration - at);
      at = duration;
    }
    w.EndArray();
    w.Key("weights");
    w.StartArray();
    for (uint64_t v : weights) w.Uint64(v);
    w.EndArray();
    w.Key("endValue");
    w.Uint64(at);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
  return {};
}

}  // namespace strobe::output
