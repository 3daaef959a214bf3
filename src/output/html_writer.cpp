#include "output/html_writer.hpp"

#include <algorithm>
#include <concepts>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/aggregate.hpp"
#include "model/frames.hpp"
#include "model/measure.hpp"
#include "output/file_buffer.hpp"
#include "output/frame_table.hpp"
#include "output/page_data.hpp"
#include "output/text_report.hpp"
#include "output/thread_order.hpp"
#include "output/viewer_assets.hpp"

namespace strobe::output {
namespace {

using model::kNone;

constexpr uint64_t kTimeUnitNs = 1000;  // sample times in µs
// Frame flags, as viewer.js reads them.
constexpr uint64_t kInlined = 1;
constexpr uint64_t kUnresolved = 2;

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// A trie whose nodes are (parent, frame, line), numbered as they are made
// (a parent's id is below its children's), found through an
// open-addressing table of node ids (kNone: empty), at most half full.
class NodeTable {
 public:
  uint32_t child(uint32_t parent, uint32_t frame, uint32_t line) {
    if (2 * (parents_.size() + 1) > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(parent, frame, line) & mask;; i = (i + 1) & mask) {
      uint32_t id = slots_[i];
      if (id == kNone) {
        id = static_cast<uint32_t>(parents_.size());
        parents_.push_back(parent);
        frames_.push_back(frame);
        lines_.push_back(line);
        slots_[i] = id;
        return id;
      }
      if (parents_[id] == parent && frames_[id] == frame && lines_[id] == line) return id;
    }
  }
  size_t size() const { return parents_.size(); }
  const std::vector<uint32_t>& parents() const { return parents_; }
  const std::vector<uint32_t>& frames() const { return frames_; }
  const std::vector<uint32_t>& lines() const { return lines_; }

 private:
  static size_t hash(uint32_t parent, uint32_t frame, uint32_t line) {
    uint64_t k = (static_cast<uint64_t>(parent) << 32 | frame) * 0x9E3779B97F4A7C15ULL;
    k ^= (k >> 29) + line * 0xC2B2AE3D27D4EB4FULL;
    return static_cast<size_t>(k ^ (k >> 31));
  }
  void grow() {
    std::vector<uint32_t> old(std::max<size_t>(1024, slots_.size() * 2), kNone);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (uint32_t id = 0; id < parents_.size(); ++id) {
      size_t i = hash(parents_[id], frames_[id], lines_[id]) & mask;
      while (slots_[i] != kNone) i = (i + 1) & mask;
      slots_[i] = id;
    }
  }

  std::vector<uint32_t> slots_;  // size: 0 or a power of two
  std::vector<uint32_t> parents_;
  std::vector<uint32_t> frames_;
  std::vector<uint32_t> lines_;
};

// The stacks as the page gets them: a trie of (display frame, line) nodes
// (inline chains expanded or folded as the FrameTable says; model stacks
// with the same frames and lines share a node), and for each such node its
// display node, the trie of frames alone that the flame graph draws. A
// frame's line is the line its function was at (the call site for a
// caller), 0 when unknown or in another file than the function's.
class DisplayTrie {
 public:
  DisplayTrie(const model::Profile& p, const FrameTable& table, bool no_inline)
      : p_(p),
        table_(table),
        no_inline_(no_inline),
        memo_(p.stacks().size(), kNone),
        memo_fn_(p.stacks().size(), kNone) {}

  // The node of a model stack's leaf; kNone for an empty stack.
  uint32_t nodeOf(model::StackId leaf) {
    if (leaf == kNone) return kNone;
    if (memo_[leaf] != kNone) return memo_[leaf];
    pending_.clear();
    model::StackId s = leaf;
    while (s != kNone && memo_[s] == kNone) {
      pending_.push_back(s);
      s = p_.stacks()[s].parent;
    }
    uint32_t node = s == kNone ? kNone : memo_[s];
    model::FunctionId caller = s == kNone ? kNone : memo_fn_[s];
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      const model::LocationId lid = p_.stacks()[*it].location;
      std::span<const uint32_t> ids = table_.ofLocation(lid);
      std::span<const model::FunctionId> fns = table_.functionsOfLocation(lid);
      for (size_t k = ids.size(); k-- > 0;) {
        // A function calling its own clone is one frame (model/frames.hpp).
        if (model::isCloneCall(p_, fns[k], caller)) continue;
        uint32_t display = node == kNone ? kNone : display_of_[node];
        node = raw_.child(node, ids[k], lineOf(lid, k));
        if (node == display_of_.size()) display_of_.push_back(display_.child(display, ids[k], 0));
        caller = fns[k];
      }
      memo_[*it] = node;
      memo_fn_[*it] = caller;
    }
    return node;
  }
  const NodeTable& raw() const { return raw_; }
  const std::vector<uint32_t>& displayOf() const { return display_of_; }
  size_t displayCount() const { return display_.size(); }

 private:
  // The line of a location's k-th frame (innermost first), 0 when unknown
  // or in another file than its function's.
  uint32_t lineOf(model::LocationId lid, size_t k) const {
    const std::vector<model::Line>& lines = p_.locations()[lid].lines;
    if (lines.empty()) return 0;
    const model::Line& l = no_inline_ ? lines.back() : lines[std::min(k, lines.size() - 1)];
    if (l.function >= p_.functions().size()) return 0;
    return model::lineFile(p_, l) == p_.functions()[l.function].file ? l.line : 0;
  }

  const model::Profile& p_;
  const FrameTable& table_;
  bool no_inline_;
  std::vector<uint32_t> memo_;  // per model stack: its node, or kNone until made
  // Per model stack: the function of its innermost frame (clone callers are
  // judged by the path's real functions).
  std::vector<model::FunctionId> memo_fn_;
  std::vector<model::StackId> pending_;
  NodeTable raw_;
  NodeTable display_;
  std::vector<uint32_t> display_of_;  // per raw node
};

template <std::integral Int>
void appendField(std::string& out, std::string_view key, Int value) {
  out += '"';
  out += key;
  out += "\":";
  out += std::to_string(value);
  out += ',';
}

void appendField(std::string& out, std::string_view key, std::string_view value) {
  out += '"';
  out += key;
  out += "\":";
  appendScriptJson(out, value);
  out += ',';
}

std::string metaJson(const model::Profile& p, const HtmlOptions& opt) {
  const model::Meta& m = p.meta();
  std::string s = R"("meta":{"command":[)";
  for (size_t i = 0; i < m.command.size(); ++i) {
    if (i > 0) s += ',';
    appendScriptJson(s, m.command[i]);
  }
  s += "],";
  appendField(s, "target", formatTarget(m));
  appendField(s, "source", opt.source);
  appendField(s, "event", m.event);
  appendField(s, "strobe_version", m.strobe_version);
  appendField(s, "hostname", m.hostname);
  appendField(s, "duration_ns", m.duration_ns);
  appendField(s, "start_unix_ms", m.start_realtime_ns / 1'000'000);
  // Exact, as text (JavaScript numbers hold 53 bits).
  appendField(s, "start_realtime_ns", std::to_string(m.start_realtime_ns));
  appendField(s, "start_monotonic_ns", std::to_string(m.start_monotonic_ns));
  appendField(s, "dropped_spans", m.dropped_spans);
  appendField(s, "frequency", m.frequency);
  appendField(s, "lost_samples", m.lost_samples);
  if (model::kindOfEvent(m.event) == model::SampleKind::kCpu) {
    appendField(s, "target_cpu_ns", m.target_cpu_ns);
  }
  // What the weights measure (model/measure.hpp): the view, its label and unit.
  const model::Measure measure = model::measureOf(p);
  appendField(s, "view", model::viewName(measure.view));
  appendField(s, "label", measure.label);
  appendField(s, "unit", measure.unit);
  appendField(s, "count_unit", measure.count_unit);
  s.back() = '}';
  s += ',';
  return s;
}

// The source text of the hottest functions, for the viewer's source view:
// the functions that hold kSourceShare of the self time (at most
// kSourceFunctions), each from its first line to its last sampled line (a
// little more on both sides), ranges of one file merged, up to
// kSourceBytes in all. A file that cannot be read is left out (the view
// then shows line numbers alone). `"sources":[...],` with the file as a
// string index.
constexpr double kSourceShare = 0.9;
constexpr size_t kSourceFunctions = 200;
constexpr size_t kSourceBytes = size_t{1} << 20;
constexpr uint32_t kSourceMargin = 2;
constexpr size_t kSourceLineChars = 400;

std::string sourcesJson(const model::Profile& p, const FrameTable& table, const DisplayTrie& trie,
                        const std::vector<model::Sample>& samples,
                        const std::vector<uint32_t>& node_of, const HtmlOptions& opt,
                        StringIds& strings) {
  std::string json = R"("sources":[)";
  if (!opt.source_lines) return json + "],";
  const size_t nfn = p.functions().size();
  auto fnOfNode = [&](uint32_t n) {
    const model::Frame& f = table.frames()[trie.raw().frames()[n]];
    return f.line != nullptr ? f.line->function : kNone;
  };
  std::vector<double> self(nfn, 0);
  double all = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    all += static_cast<double>(samples[i].weight);
    if (node_of[i] == kNone) continue;
    model::FunctionId fn = fnOfNode(node_of[i]);
    if (fn < nfn) self[fn] += static_cast<double>(samples[i].weight);
  }
  std::vector<uint32_t> lo(nfn, UINT32_MAX), hi(nfn, 0);
  for (uint32_t n = 0; n < trie.raw().size(); ++n) {
    model::FunctionId fn = fnOfNode(n);
    uint32_t line = trie.raw().lines()[n];
    if (fn >= nfn || line == 0) continue;
    lo[fn] = std::min(lo[fn], line);
    hi[fn] = std::max(hi[fn], line);
  }
  std::vector<model::FunctionId> order;
  for (model::FunctionId fn = 0; fn < nfn; ++fn) {
    if (self[fn] > 0) order.push_back(fn);
  }
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return self[a] > self[b]; });
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges;  // per file
  double covered = 0;
  for (size_t k = 0; k < order.size() && k < kSourceFunctions && covered < kSourceShare * all;
       ++k) {
    model::FunctionId fn = order[k];
    covered += self[fn];
    const model::Function& f = p.functions()[fn];
    if (f.file == model::kEmptyString || hi[fn] == 0) continue;
    uint32_t first = std::min(lo[fn], f.start_line != 0 ? f.start_line : lo[fn]);
    first = first > kSourceMargin ? first - kSourceMargin : 1;
    ranges[std::string(p.str(f.file))].emplace_back(first, hi[fn] + kSourceMargin);
  }
  size_t bytes = 0;
  bool any = false;
  for (auto& [file, list] : ranges) {
    const std::vector<std::string>* text = opt.source_lines(file);
    if (text == nullptr || text->empty()) continue;
    std::sort(list.begin(), list.end());
    std::vector<std::pair<uint32_t, uint32_t>> merged;
    for (const auto& r : list) {
      if (!merged.empty() && r.first <= merged.back().second + 10) {
        merged.back().second = std::max(merged.back().second, r.second);
      } else {
        merged.push_back(r);
      }
    }
    for (auto [first, last] : merged) {
      last = std::min<uint32_t>(last, static_cast<uint32_t>(text->size()));
      if (first > last) continue;
      std::string part = any ? "," : "";
      part += R"({"file":)" + std::to_string(strings.intern(file)) + R"(,"first":)" +
              std::to_string(first) + R"(,"lines":[)";
      for (uint32_t l = first; l <= last; ++l) {
        const std::string& line = (*text)[l - 1];
        if (l > first) part += ',';
        appendScriptJson(part, line.size() <= kSourceLineChars
                                   ? line
                                   : line.substr(0, kSourceLineChars) + "...");
      }
      part += "]}";
      if (bytes + part.size() > kSourceBytes) return json + "],";
      bytes += part.size();
      json += part;
      any = true;
    }
  }
  return json + "],";
}

}  // namespace

void appendScriptJson(std::string& out, std::string_view s) {
  std::string json;
  appendJsonString(json, s);
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
}

Status writeHtml(const model::Profile& p, const HtmlOptions& opt, std::FILE* file) {
  size_t css_at = kViewerHtml.find(kCssMarker);
  size_t data_at = kViewerHtml.find(kDataMarker);
  size_t js_at = kViewerHtml.find(kJsMarker);
  if (css_at == std::string_view::npos || data_at == std::string_view::npos ||
      js_at == std::string_view::npos || !(css_at < data_at && data_at < js_at)) {
    return makeError("the embedded HTML viewer is damaged", "rebuild strobe");
  }

  // Frames: name, file, line, module, flags and function, strings interned.
  // A function is its identity (model/frames.hpp): the inlined and the
  // called frames of one function share it, and the viewer's table counts
  // functions by it, never by name.
  FrameTable table(p, opt.no_inline);
  StringIds strings;
  std::string frames;
  std::unordered_map<uint64_t, uint32_t> function_numbers;
  for (const model::Frame& f : table.frames()) {
    uint32_t file_id = 0;
    uint32_t line = 0;
    if (f.line != nullptr) {
      const model::Function& fn = p.functions()[f.line->function];
      file_id = strings.intern(p.str(fn.file));
      line = fn.start_line;
    }
    const model::Location& loc = p.locations()[f.location];
    std::string module(loc.module == kNone ? "[unknown]" : std::string(p.moduleName(loc.module)));
    appendVlq(frames, strings.intern(model::frameName(p, f)));
    appendVlq(frames, file_id);
    appendVlq(frames, line);
    appendVlq(frames, strings.intern(module));
    appendVlq(frames, (f.inlined ? kInlined : 0) | (f.line == nullptr ? kUnresolved : 0));
    appendVlq(frames, function_numbers
                          .try_emplace(model::functionKey(p, f),
                                       static_cast<uint32_t>(function_numbers.size()))
                          .first->second);
  }

  // Every sample's node, so the trie is complete before it is written.
  const std::vector<model::Sample>& samples = p.samples();
  const std::map<int32_t, std::vector<uint32_t>> per_thread = samplesByThread(p);
  // Spans per thread, by start (outer first), their names interned.
  std::map<int32_t, std::vector<uint32_t>> spans_of;
  for (uint32_t i = 0; i < p.spans().size(); ++i) spans_of[p.spans()[i].tid].push_back(i);
  for (auto& [tid, v] : spans_of) {
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
      const model::Span& x = p.spans()[a];
      const model::Span& y = p.spans()[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.depth < y.depth;
    });
    for (uint32_t i : v) strings.intern(p.str(p.spans()[i].name));
  }
  std::set<int32_t> tids;  // threads with samples or spans
  for (const auto& [tid, idx] : per_thread) tids.insert(tid);
  for (const auto& [tid, v] : spans_of) tids.insert(tid);
  const std::vector<uint32_t> none;
  DisplayTrie trie(p, table, opt.no_inline);
  std::vector<uint32_t> node_of(samples.size());
  for (uint32_t i = 0; i < samples.size(); ++i) node_of[i] = trie.nodeOf(samples[i].stack);
  const std::string sources = sourcesJson(p, table, trie, samples, node_of, opt, strings);

  FileBuffer out(file);
  out.append(kViewerHtml.substr(0, css_at));
  out.append(kViewerCss);
  out.append(kViewerHtml.substr(css_at + kCssMarker.size(), data_at - css_at - kCssMarker.size()));

  std::string head = R"({"format":"strobe-html","version":3,)";
  head += metaJson(p, opt);
  appendField(head, "time_unit_ns", kTimeUnitNs);
  head += R"("strings":[)";
  for (size_t i = 0; i < strings.list().size(); ++i) {
    if (i > 0) head += ',';
    appendScriptJson(head, strings.list()[i]);
  }
  head += "],";
  appendField(head, "frame_count", table.frames().size());
  appendField(head, "function_count", function_numbers.size());
  // 0 when no share is an estimate (off-CPU time is measured): no row marked.
  appendField(head, "few_samples",
              model::sharesAreSampled(p.samples()) ? model::kFewSamples : uint64_t{0});
  head += R"("frames":")";
  out.append(head);
  out.append(frames);
  head = "\",";
  appendField(head, "node_count", trie.raw().size());
  appendField(head, "display_node_count", trie.displayCount());
  head += R"("nodes":")";
  out.append(head);
  // Per node: its id minus its parent's (id + 1 at a root), frame, line,
  // and 0 when it is the first node of the next display node, else how
  // many display nodes back its display node is.
  std::string chunk;
  uint32_t next_display = 0;
  for (uint32_t n = 0; n < trie.raw().size(); ++n) {
    uint32_t parent = trie.raw().parents()[n];
    appendVlq(chunk, parent == kNone ? uint64_t{n} + 1 : n - parent);
    appendVlq(chunk, trie.raw().frames()[n]);
    appendVlq(chunk, trie.raw().lines()[n]);
    uint32_t d = trie.displayOf()[n];
    appendVlq(chunk, d == next_display ? 0 : next_display - d);
    if (d == next_display) ++next_display;
    if (chunk.size() > 60'000) {
      out.append(chunk);
      chunk.clear();
    }
  }
  out.append(chunk);
  out.append("\",");
  out.append(sources);
  out.append("\"threads\":[");

  // (time delta in µs, node delta, weight delta) per sample, in time order.
  auto appendSamples = [&](FileBuffer& dst, const std::vector<uint32_t>& list) {
    uint64_t prev_time = 0;
    int64_t prev_node = 0;  // node + 1; 0: the empty stack
    int64_t prev_weight = 0;
    for (uint32_t i : list) {
      const model::Sample& s = samples[i];
      uint64_t time = s.time_ns / kTimeUnitNs;
      int64_t node = node_of[i] == kNone ? 0 : int64_t{node_of[i]} + 1;
      auto weight = static_cast<int64_t>(s.weight);
      appendVlq(dst, time - prev_time);
      appendVlq(dst, zigzag(node - prev_node));
      appendVlq(dst, zigzag(weight - prev_weight));
      prev_time = time;
      prev_node = node;
      prev_weight = weight;
    }
  };
  std::vector<uint32_t> on;
  std::vector<uint32_t> off;
  bool first = true;
  for (int32_t tid : tids) {
    auto found = per_thread.find(tid);
    const std::vector<uint32_t>& idx = found != per_thread.end() ? found->second : none;
    const model::Thread* t = p.findThread(tid);
    head = first ? "{" : ",{";
    first = false;
    appendField(head, "tid", tid);
    appendField(head, "pid", t != nullptr ? t->pid : 0);
    appendField(head, "name", threadName(p, tid));
    if (t != nullptr && !t->role.empty()) appendField(head, "role", t->role);
    if (auto sp = spans_of.find(tid); sp != spans_of.end()) {
      // (start delta, duration, name, depth) per span, in ns.
      appendField(head, "span_count", sp->second.size());
      head += R"("spans":")";
      uint64_t prev_start = 0;
      for (uint32_t i : sp->second) {
        const model::Span& x = p.spans()[i];
        appendVlq(head, x.start_ns - prev_start);
        appendVlq(head, x.end_ns - x.start_ns);
        appendVlq(head, strings.intern(p.str(x.name)));
        appendVlq(head, x.depth);
        prev_start = x.start_ns;
      }
      head += "\",";
    }
    // Off-CPU intervals (record --off-cpu) apart from the other samples,
    // in the same encoding: the timeline draws them in their own colour.
    on.clear();
    off.clear();
    for (uint32_t i : idx) (samples[i].kind == model::SampleKind::kOffCpu ? off : on).push_back(i);
    appendField(head, "samples", on.size());
    head += R"("data":")";
    out.append(head);
    appendSamples(out, on);
    if (!off.empty()) {
      head = "\",";
      appendField(head, "off_samples", off.size());
      head += R"("off_data":")";
      out.append(head);
      appendSamples(out, off);
    }
    out.append("\"}");
    if (!out.ok()) break;
  }
  out.append("]}");

  out.append(
      kViewerHtml.substr(data_at + kDataMarker.size(), js_at - data_at - kDataMarker.size()));
  out.append(kViewerJs);
  out.append(kViewerHtml.substr(js_at + kJsMarker.size()));
  if (!out.flush()) {
    return systemError("cannot write the report", "check the output path and free space");
  }
  return {};
}

}  // namespace strobe::output
