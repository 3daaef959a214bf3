// The chrome writer formats its own JSON: a 1,000,000-sample profile can
// make ten million events, too many to push through a generic JSON writer.
// Names are escaped once per frame (appendJsonString, RapidJSON's escaping),
// the fixed parts of an event are prepared per frame and per thread, and
// times are printed exactly from integer nanoseconds.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/measure.hpp"
#include "output/file_buffer.hpp"
#include "output/frame_table.hpp"
#include "output/json_writers.hpp"
#include "output/thread_order.hpp"

namespace strobe::output {
namespace {

void metadata(FileBuffer& out, const char* what, int32_t pid, int32_t tid,
              const std::string& name) {
  std::string s = R"({"ph":"M","name":")";
  s += what;
  s += R"(","pid":)";
  s += std::to_string(pid);
  s += R"(,"tid":)";
  s += std::to_string(tid);
  s += R"(,"args":{"name":)";
  appendJsonString(s, name);
  s += "}}";
  out.append(s);
}

struct Open {
  uint32_t frame;  // frame id (FrameTable)
  uint64_t start_ns;
};

// The program's spans, per thread: drawn as slices on the thread's own track
// above its sampled stacks. Sampled slices are cut at every span boundary so
// that each lies wholly inside or outside a span, and the track nests.
class SpanTrack {
 public:
  explicit SpanTrack(const model::Profile& p) : p_(p) {
    for (uint32_t i = 0; i < p.spans().size(); ++i) by_tid_[p.spans()[i].tid].push_back(i);
    for (auto& [tid, idx] : by_tid_) {
      // Outer spans first where they start together.
      std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
        const model::Span& x = p.spans()[a];
        const model::Span& y = p.spans()[b];
        return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.depth < y.depth;
      });
    }
  }
  void addThreads(std::set<int32_t>& tids) const {
    for (const auto& [tid, idx] : by_tid_) tids.insert(tid);
  }
  // The thread's span slices; `ids` is its ,"pid":P,"tid":T,"ts": part.
  void write(FileBuffer& out, int32_t tid, const std::string& ids) const {
    auto it = by_tid_.find(tid);
    if (it == by_tid_.end()) return;
    for (uint32_t i : it->second) {
      const model::Span& s = p_.spans()[i];
      std::string e = R"(,{"ph":"X","cat":"span","name":)";
      appendJsonString(e, p_.str(s.name));
      out.append(e);
      out.append(ids);
      out.appendMicros(s.start_ns);
      out.append(R"(,"dur":)");
      out.appendMicros(s.end_ns - s.start_ns);
      out.append(R"(,"args":{"depth":)" + std::to_string(s.depth) + "}}");
    }
  }
  // The thread's span starts and ends, sorted: where sampled slices are cut.
  [[nodiscard]] std::vector<uint64_t> cuts(int32_t tid) const {
    std::vector<uint64_t> v;
    auto it = by_tid_.find(tid);
    if (it == by_tid_.end()) return v;
    for (uint32_t i : it->second) {
      v.push_back(p_.spans()[i].start_ns);
      v.push_back(p_.spans()[i].end_ns);
    }
    std::sort(v.begin(), v.end());
    return v;
  }

 private:
  const model::Profile& p_;
  std::map<int32_t, std::vector<uint32_t>> by_tid_;
};

// The category and args of off-CPU slices (record --off-cpu): chrome://tracing
// colours them by cname, every viewer shows the category and the reason.
std::string offCpuTail(model::OffCpuReason reason) {
  std::string s = R"(,"cat":"off-cpu","cname":"thread_state_sleeping","args":{"off-cpu":)";
  appendJsonString(s, model::reasonName(reason));
  s += '}';
  return s;
}

}  // namespace

Status writeChromeTrace(const model::Profile& p, bool no_inline, std::FILE* file) {
  const model::Meta& m = p.meta();
  const std::vector<model::Sample>& samples = p.samples();
  const std::map<int32_t, std::vector<uint32_t>> per_thread = samplesByThread(p);

  // Each frame's event opens the same way: its name, escaped once.
  FrameTable table(p, no_inline);
  std::vector<std::string> opening;
  opening.reserve(table.frames().size());
  for (const model::Frame& f : table.frames()) {
    std::string s = R"({"ph":"X","name":)";
    appendJsonString(s, frameLabel(p, f));
    opening.push_back(std::move(s));
  }

  FileBuffer out(file);
  {
    std::string head = R"({"displayTimeUnit":"ms","otherData":{"exporter":)";
    appendJsonString(head, "strobe " + m.strobe_version);
    head += R"(,"event":)";
    appendJsonString(head, m.event);
    // The session's start on both clocks: ts 0 is this moment.
    head += R"(,"start_monotonic_ns":)" + std::to_string(m.start_monotonic_ns);
    head += R"(,"start_realtime_ns":)" + std::to_string(m.start_realtime_ns);
    head += R"(,"view":)";
    appendJsonString(head, model::viewName(model::viewOf(p)));
    head += R"(},"traceEvents":[)";
    out.append(head);
  }

  const SpanTrack spans(p);
  std::set<int32_t> tids;  // threads with samples or spans
  for (const auto& [tid, idx] : per_thread) tids.insert(tid);
  spans.addThreads(tids);
  std::set<int32_t> pids;
  for (int32_t tid : tids) {
    const model::Thread* t = p.findThread(tid);
    pids.insert(t != nullptr && t->pid != 0 ? t->pid : m.pid);
  }
  std::string command = m.command.empty() ? "process" : m.command.front();
  bool first = true;
  for (int32_t pid : pids) {
    if (!first) out.append(',');
    first = false;
    metadata(out, "process_name", pid, 0, command);
  }

  std::vector<Open> open;
  std::vector<uint32_t> frames;
  const std::vector<uint32_t> no_samples;
  for (int32_t tid : tids) {
    auto found = per_thread.find(tid);
    const std::vector<uint32_t>& idx = found != per_thread.end() ? found->second : no_samples;
    const model::Thread* t = p.findThread(tid);
    int32_t pid = t != nullptr && t->pid != 0 ? t->pid : m.pid;
    if (!first) out.append(',');
    first = false;
    metadata(out, "thread_name", pid, tid, threadLabel(p, tid));
    const std::string ids =
        R"(,"pid":)" + std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)";
    spans.write(out, tid, ids);
    const std::vector<uint64_t> cuts = spans.cuts(tid);
    size_t next_cut = 0;

    // Closes open frames down to `keep`, at time `end_ns`, innermost first.
    // Off-CPU slices carry their category (off_tail).
    std::string off_tail;
    auto closeTo = [&](size_t keep, uint64_t end_ns) {
      while (open.size() > keep) {
        const Open& o = open.back();
        out.append(',');
        out.append(opening[o.frame]);
        out.append(ids);
        out.appendMicros(o.start_ns);
        out.append(R"(,"dur":)");
        out.appendMicros(end_ns - o.start_ns);
        if (!off_tail.empty()) out.append(off_tail);
        out.append('}');
        open.pop_back();
      }
    };

    open.clear();
    uint64_t prev_end = 0;
    uint64_t prev_weight = 0;
    bool prev_off = false;
    for (uint32_t i : idx) {
      const model::Sample& s = samples[i];
      // A gap longer than a sample period ends every open frame, and so
      // does a change between CPU and off-CPU time (or between reasons).
      const bool off = s.kind == model::SampleKind::kOffCpu;
      const std::string tail = off ? offCpuTail(s.off_cpu_reason) : std::string();
      uint64_t close_at = UINT64_MAX;
      if (!open.empty() &&
          (s.time_ns > prev_end + prev_weight || off != prev_off || tail != off_tail)) {
        close_at = std::min(prev_end, s.time_ns);
      }
      // So does a span's start or end since the last sample (there at the latest).
      if (next_cut < cuts.size() && cuts[next_cut] <= s.time_ns) {
        close_at = std::min({close_at, prev_end, cuts[next_cut]});
        while (next_cut < cuts.size() && cuts[next_cut] <= s.time_ns) ++next_cut;
      }
      if (close_at != UINT64_MAX) closeTo(0, close_at);
      off_tail = tail;
      prev_off = off;
      frames.clear();
      table.appendLeafFirst(p, s.stack, frames);
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
    closeTo(0, next_cut < cuts.size() ? std::min(prev_end, cuts[next_cut]) : prev_end);
    if (!out.ok()) break;  // the disk is full: stop formatting
  }
  out.append("]}\n");
  if (!out.flush()) {
    return systemError("cannot write the report", "check the output path and free space");
  }
  return {};
}

}  // namespace strobe::output
