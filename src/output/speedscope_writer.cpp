#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <vector>

#include "model/measure.hpp"
#include "output/frame_table.hpp"
#include "output/json_writers.hpp"
#include "output/thread_order.hpp"
#include "output/utf8.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

void str(JsonWriter& w, const std::string& s) {
  std::string scratch;
  std::string_view v = validUtf8(s, scratch);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

}  // namespace

Status writeSpeedscope(const model::Profile& p, bool no_inline, const std::string& name,
                       std::FILE* out) {
  FrameTable table(p, no_inline);

  const std::map<int32_t, std::vector<uint32_t>> per_thread = samplesByThread(p);

  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.StartObject();
  w.Key("$schema");
  w.String("https://www.speedscope.app/file-format-schema.json");
  w.Key("exporter");
  str(w, "strobe " + p.meta().strobe_version);
  // Weights are in the view's unit (model/measure.hpp): nanoseconds of
  // CPU, off-CPU or wall time, or counts of an event ("none").
  const model::Measure measure = model::measureOf(p);
  w.Key("name");
  str(w, measure.view == model::View::kCpu
             ? name
             : name + " (" + std::string(model::viewName(measure.view)) + ")");
  w.Key("activeProfileIndex");
  w.Uint(0);
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
    str(w, frameLabel(p, f));
    if (f.line != nullptr) {
      const model::Function& fn = p.functions()[f.line->function];
      if (fn.file != model::kEmptyString) {
        w.Key("file");
        str(w, p.str(fn.file));
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
  std::vector<uint32_t> stack;
  for (const auto& [tid, idx] : per_thread) {
    uint64_t total = 0;
    for (uint32_t i : idx) total += p.samples()[i].weight;
    w.StartObject();
    w.Key("type");
    w.String("sampled");
    w.Key("name");
    str(w, threadLabel(p, tid));
    w.Key("unit");
    w.String(measure.time() ? "nanoseconds" : "none");
    w.Key("startValue");
    w.Uint64(0);
    w.Key("endValue");
    w.Uint64(total);
    w.Key("samples");
    w.StartArray();
    for (uint32_t i : idx) {
      stack.clear();
      table.appendLeafFirst(p, p.samples()[i].stack, stack);
      w.StartArray();
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) w.Uint(*it);
      w.EndArray();
    }
    w.EndArray();
    w.Key("weights");
    w.StartArray();
    for (uint32_t i : idx) w.Uint64(p.samples()[i].weight);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
  return {};
}

}  // namespace strobe::output
