#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>
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
  uint64_t key;
  model::Frame frame;
  uint64_t start_ns;
};

}  // namespace

Status writeChromeTrace(const model::Profile& p, bool no_inline, std::FILE* out) {
  const model::Meta& m = p.meta();
  std::map<int32_t, std::vector<uint32_t>> per_thread;
  for (uint32_t i = 0; i < p.samples().size(); ++i) per_thread[p.samples()[i].tid].push_back(i);

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
  std::vector<model::Frame> frames;
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
        std::string n = model::frameName(p, o.frame);
        if (o.frame.inlined) n += " [inlined]";
        str(w, n);
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
      model::forEachDisplayFrame(p, s.stack, no_inline,
                                 [&](const model::Frame& f) { frames.push_back(f); });
      std::reverse(frames.begin(), frames.end());
      size_t common = 0;
      while (common < open.size() && common < frames.size()) {
        const model::Frame& f = frames[common];
        uint64_t key = model::functionKey(f) | (f.inlined ? (1ULL << 62) : 0);
        if (open[common].key != key) break;
        ++common;
      }
      closeTo(common, s.time_ns);
      for (size_t k = common; k < frames.size(); ++k) {
        const model::Frame& f = frames[k];
        uint64_t key = model::functionKey(f) | (f.inlined ? (1ULL << 62) : 0);
        open.push_back(Open{key, f, s.time_ns});
      }
      // A sample stands for the period before its time stamp is taken; draw
      // it as [time, time + weight) so consecutive samples touch.
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
