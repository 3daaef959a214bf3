#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "model/frames.hpp"
#include "output/json_writers.hpp"

namespace strobe::output {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

void str(JsonWriter& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string threadName(const model::Profile& p, int32_t tid) {
  const model::Thread* t = p.findThread(tid);
  std::string name = t != nullptr && !t->name.empty() ? t->name : "thread";
  return name + " (" + std::to_string(tid) + ")";
}

}  // namespace

Status writeSpeedscope(const model::Profile& p, bool no_inline, const std::string& name,
                       std::FILE* out) {
  // Frames: one per (function or unresolved location, inlined); each
  // location maps to its frame indices, innermost first.
  std::vector<std::vector<uint32_t>> loc_frames(p.locations().size());
  std::unordered_map<uint64_t, uint32_t> frame_ids;
  std::vector<model::Frame> frames;
  for (model::LocationId lid = 0; lid < p.locations().size(); ++lid) {
    model::forEachLocationFrame(p, lid, no_inline, [&](const model::Frame& f) {
      uint64_t key = model::functionKey(f) | (f.inlined ? (1ULL << 62) : 0);
      auto [it, inserted] = frame_ids.try_emplace(key, static_cast<uint32_t>(frames.size()));
      if (inserted) frames.push_back(f);
      loc_frames[lid].push_back(it->second);
    });
  }

  // Samples per thread, in time order.
  std::map<int32_t, std::vector<uint32_t>> per_thread;
  for (uint32_t i = 0; i < p.samples().size(); ++i) per_thread[p.samples()[i].tid].push_back(i);
  for (auto& [tid, idx] : per_thread) {
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      return p.samples()[a].time_ns < p.samples()[b].time_ns;
    });
  }

  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.StartObject();
  w.Key("$schema");
  w.String("https://www.speedscope.app/file-format-schema.json");
  w.Key("exporter");
  str(w, "strobe " + p.meta().strobe_version);
  w.Key("name");
  str(w, name);
  w.Key("activeProfileIndex");
  w.Uint(0);
  w.Key("shared");
  w.StartObject();
  w.Key("frames");
  w.StartArray();
  for (const model::Frame& f : frames) {
    w.StartObject();
    w.Key("name");
    std::string n = model::frameName(p, f);
    if (f.inlined) n += " [inlined]";
    str(w, n);
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
    str(w, threadName(p, tid));
    w.Key("unit");
    w.String("nanoseconds");
    w.Key("startValue");
    w.Uint64(0);
    w.Key("endValue");
    w.Uint64(total);
    w.Key("samples");
    w.StartArray();
    for (uint32_t i : idx) {
      stack.clear();
      p.forEachFrame(p.samples()[i].stack, [&](model::LocationId lid) {
        stack.insert(stack.end(), loc_frames[lid].begin(), loc_frames[lid].end());
      });
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
