#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
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

double micros(uint64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

void metadata(JsonWriter& w, const char* what, int32_t pid, int32_t tid, const std::string& name) {
  w.StartObject();
  w.Key("ph");
  w.String("M");
  w.Key("name");
  w.String(what);
  w.Key("pid");
  w.Int(pid);
  w.Key("tid");
  w.Int(tid);
  w.Key("args");
  w.StartObject();
  w.Key("name");
  str(w, name);
  w.EndObject();
  w.EndObject();
}

struct Open {
  uint32_t frame;  // index into the frame names
  uint64_t start_ns;
};

}  // namespace

Status writeChromeTrace(const model::Profile& p, bool no_inline, std::FILE* out) {
  const model::Meta& m = p.meta();
  std::map<int32_t, std::vector<uint32_t>> per_thread;
  for (uint32_t i = 0; i < p.samples().size(); ++i) per_thread[p.samples()[i].tid].push_back(i);

  // Each distinct frame (function or unresolved location, inlined or not)
  // is named once; each location maps to its frames, innermost first.
  std::vector<std::vector<uint32_t>> loc_frames(p.locations().size());
  std::unordered_map<uint64_t, uint32_t> frame_ids;
  std::vector<std::string> names;
  for (model::LocationId lid = 0; lid < p.locations().size(); ++lid) {
    model::forEachLocationFrame(p, lid, no_inline, [&](const model::Frame& f) {
      uint64_t key = model::functionKey(f) | (f.inlined ? (1ULL << 62) : 0);
      auto [it, inserted] = frame_ids.try_emplace(key, static_cast<uint32_t>(names.size()));
      if (inserted) names.push_back(model::frameName(p, f) + (f.inlined ? " [inlined]" : ""));
      loc_frames[lid].push_back(it->second);
    });
  }

  char buf[1 << 16];
  rapidjson::FileWriteStream os(out, buf, sizeof buf);
  JsonWriter w(os);
  w.SetMaxDecimalPlaces(3);
  w.StartObject();
  w.Key("displayTimeUnit");
  w.String("ms");
  w.Key("otherData");
  w.StartObject();
  w.Key("exporter");
  str(w, "strobe " + m.strobe_version);
  w.Key("event");
  str(w, m.event);
  w.EndObject();
  w.Key("traceEvents");
  w.StartArray();

  std::set<int32_t> pids;
  for (const auto& [tid, idx] : per_thread) {
    const model::Thread* t = p.findThread(tid);
    pids.insert(t != nullptr && t->pid != 0 ? t->pid : m.pid);
  }
  std::string command = m.command.empty() ? "process" : m.command.front();
  for (int32_t pid : pids) metadata(w, "process_name", pid, 0, command);

  std::vector<Open> open;
  std::vector<uint32_t> frames;
  for (auto& [tid, idx] : per_thread) {
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      return p.samples()[a].time_ns < p.samples()[b].time_ns;
    });
    const model::Thread* t = p.findThread(tid);
    int32_t pid = t != nullptr && t->pid != 0 ? t->pid : m.pid;
    std::string tname = t != nullptr && !t->name.empty() ? t->name : "thread";
    metadata(w, "thread_name", pid, tid, tname + " (" + std::to_string(tid) + ")");

    // Closes open frames down to `keep`, at time `end_ns`, innermost first.
    auto closeTo = [&](size_t keep, uint64_t end_ns) {
      while (open.size() > keep) {
        const Open& o = open.back();
        w.StartObject();
        w.Key("ph");
        w.String("X");
        w.Key("name");
        str(w, names[o.frame]);
        w.Key("pid");
        w.Int(pid);
        w.Key("tid");
        w.Int(tid);
        w.Key("ts");
        w.Double(micros(o.start_ns));
        w.Key("dur");
        w.Double(micros(end_ns - o.start_ns));
        w.EndObject();
        open.pop_back();
      }
    };

    open.clear();
    uint64_t prev_end = 0;
    uint64_t prev_weight = 0;
    for (uint32_t i : idx) {
      const model::Sample& s = p.samples()[i];
      // A gap longer than a sample period ends every open frame.
      if (!open.empty() && s.time_ns > prev_end + prev_weight) closeTo(0, prev_end);
      frames.clear();
      p.forEachFrame(s.stack, [&](model::LocationId lid) {
        frames.insert(frames.end(), loc_frames[lid].begin(), loc_frames[lid].end());
      });
      std::reverse(frames.begin(), frames.end());  // root first
      size_t common = 0;
      while (common < open.size() && common < frames.size() &&
             open[common].frame == frames[common]) {
        ++common;
      }
      closeTo(common, s.time_ns);
      for (size_t k = common; k < frames.size(); ++k) open.push_back(Open{frames[k], s.time_ns});
      // Each sample is drawn as [time, time + weight), so consecutive
      // samples of a busy thread touch.
      prev_end = s.time_ns + s.weight;
      prev_weight = s.weight;
    }
    closeTo(0, prev_end);
  }
  w.EndArray();
  w.EndObject();
  os.Put('\n');
  os.Flush();
  return {};
}

}  // namespace strobe::output
