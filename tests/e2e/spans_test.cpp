// End to end: spans and thread roles of programs linked with libstrobe,
// recorded by `strobe record` (launch and -p) and by the program's own
// libstrobe session (a native x.db), then read back by `strobe report`
// (--spans, --span ... --slowest, --by thread, chrome) and checked against
// the program's own accounts (its request counts, its CPU clock, its span
// counts). Acceptance 1, 2, 3 (chrome), 5 of the spans issue.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kService = kFixtures + "fixture_span_service";
const std::string kFlood = kFixtures + "fixture_span_flood";

class SpansTest : public ::testing::Test {
 public:
  // One recording of the service under `strobe record -F 999`, made by the
  // first test that reads it and shared with the others (runOnce: the
  // service runs for seconds; only the tests that need it wait for it).
  static const Ran& shared() {
    if (shared_dir_.empty()) {
      SharedRun run =
          runOnce("spans", {kStrobe, "record", "-F", "999", "-o", "{dir}/rec.db", "--", kService});
      shared_dir_ = run.dir;
      shared_ = run.ran;
    }
    return shared_;
  }
  static std::string sharedDb() { return shared_dir_ + "/rec.db"; }

  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  // `strobe ARGS` that must succeed, its stdout parsed as JSON.
  rapidjson::Document json(std::vector<std::string> args) {
    args.insert(args.begin(), kStrobe);
    Ran r = runProcess(args);
    EXPECT_EQ(r.status, 0) << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.out.substr(0, 300);
    return d;
  }

 protected:
  std::string dir_;
  static inline std::string shared_dir_;
  static inline Ran shared_;
};

// A span row of `report --spans -f json`, or null.
const rapidjson::Value* spanRow(const rapidjson::Document& d, const std::string& name) {
  if (!d.IsObject() || !d.HasMember("spans")) return nullptr;
  for (const auto& r : d["spans"].GetArray()) {
    if (r["name"].GetString() == name) return &r;
  }
  return nullptr;
}

// total_pct of the function whose name contains `part` in a --top 0 json table.
double totalPct(const rapidjson::Document& d, const std::string& part) {
  if (!d.IsObject() || !d.HasMember("rows")) return -1;
  for (const auto& r : d["rows"].GetArray()) {
    if (std::string(r["name"].GetString()).find(part) != std::string::npos) {
      return r["total_pct"].GetDouble();
    }
  }
  return 0;
}

// "span_service: requests 2000 slow 20 usual_cpu_ns U slow_cpu_ns S".
struct ServiceReport {
  int requests = 0, slow = 0;
  unsigned long long usual_ns = 0, slow_ns = 0;
};
ServiceReport parseService(const std::string& out) {
  ServiceReport s;
  size_t at = out.find("span_service: requests");
  if (at != std::string::npos) {
    std::sscanf(out.c_str() + at,
                "span_service: requests %d slow %d usual_cpu_ns %llu slow_cpu_ns %llu", &s.requests,
                &s.slow, &s.usual_ns, &s.slow_ns);
  }
  return s;
}

// Acceptance 1 on one recording of the service, made by strobe record or
// by the library: the span count, the slow spans' samples, the threads.
void checkService(SpansTest& t, const std::string& db, const ServiceReport& program,
                  rapidjson::Document (SpansTest::*json)(std::vector<std::string>)) {
  ASSERT_EQ(program.requests, 2000);
  rapidjson::Document spans = (t.*json)({"report", db, "--spans", "-f", "json"});
  const rapidjson::Value* request = spanRow(spans, "request");
  ASSERT_NE(request, nullptr);
  EXPECT_EQ((*request)["count"].GetUint64(), 2000u);
  const rapidjson::Value* parse = spanRow(spans, "parse");
  ASSERT_NE(parse, nullptr);
  EXPECT_EQ((*parse)["count"].GetUint64(), 2000u);
  EXPECT_EQ(spans["dropped_spans"].GetUint64(), 0u);
  // The CPU sampled inside the requests against the program's own clock.
  const double own = static_cast<double>(program.usual_ns + program.slow_ns);
  const double inside = static_cast<double>((*request)["cpu_ns"].GetUint64());
  EXPECT_NEAR(inside / own, 1.0, 0.2) << "sampled " << inside << " ns, the program says " << own;
  // The 20 slowest requests are the slow ones: their samples are slow_path's.
  rapidjson::Document slowest =
      (t.*json)({"report", db, "--span", "request", "--slowest", "20", "--top", "0", "-f", "json"});
  EXPECT_GE(totalPct(slowest, "slow_path"), 80.0);
  // The whole profile: mostly the usual path (about 1980 x 1 vs 20 x 30).
  rapidjson::Document whole = (t.*json)({"report", db, "--top", "0", "-f", "json"});
  EXPECT_GT(totalPct(whole, "usual_path"), 50.0);
  EXPECT_LT(totalPct(whole, "slow_path"), 40.0);
  // --by thread names the four workers by role.
  rapidjson::Document threads =
      (t.*json)({"report", db, "--by", "thread", "--top", "0", "-f", "json"});
  std::set<std::string> workers;
  for (const auto& r : threads["rows"].GetArray()) {
    std::string name = r["name"].GetString();
    if (name.rfind("worker ", 0) == 0 && name.find(" (tid ") != std::string::npos) {
      workers.insert(name.substr(0, name.find(" (tid ")));
    }
  }
  EXPECT_EQ(workers, (std::set<std::string>{"worker 0", "worker 1", "worker 2", "worker 3"}));
  // --thread matches roles.
  rapidjson::Document one = (t.*json)({"report", db, "--thread", "worker 2", "-f", "json"});
  EXPECT_EQ(one["threads"].GetUint64(), 1u);
}

TEST_F(SpansTest, RecordedServiceHasItsSpansRolesAndSlowRequests) {
  const Ran& r = shared();
  const std::string db = sharedDb();
  ASSERT_EQ(r.status, 0) << r.err;
  ServiceReport program = parseService(r.out);
  checkService(*this, db, program, &SpansTest::json);
  // The recording's spans are visible to SQL.
  Ran q = runProcess(
      {kStrobe, "query", db, "SELECT count(*) FROM spans WHERE name = 'request' AND depth = 0"});
  EXPECT_NE(q.out.find("2000"), std::string::npos) << q.out << q.err;
  Ran text = runProcess({kStrobe, "report", db, "--spans"});
  EXPECT_NE(text.out.find("spans:     4000 recorded (2 names), 0 dropped"), std::string::npos)
      << text.out;
}

TEST_F(SpansTest, LibraryWritesANativeRecordingWithSpans) {
  const std::string db = file("x.db");
  Ran r = runProcess({kService, "--library", db});
  ASSERT_EQ(r.status, 0) << r.err;
  checkService(*this, db, parseService(r.out), &SpansTest::json);
  model::Profile p = loadRecording(db);
  EXPECT_EQ(p.meta().frequency, 999u);
  EXPECT_FALSE(p.meta().command.empty());
}

TEST_F(SpansTest, PreloadWritesANativeRecordingForDotDb) {
  const std::string db = file("app.db");
  Ran r = runProcess(
      {"/usr/bin/env", "LD_PRELOAD=" STROBE_ASAN_PRELOAD STROBE_BINARY_DIR "/libstrobe.so",
       "STROBE_OUTPUT=" + db, "STROBE_FREQ=999", kFixtures + "fixture_shares", "100000", "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Every format reads it: the shares of the fixture's 6 : 3 : 1 work.
  rapidjson::Document top = json({"report", db, "--top", "0", "-f", "json"});
  auto self = [&](const std::string& part) {
    for (const auto& row : top["rows"].GetArray()) {
      if (std::string(row["name"].GetString()).find(part) != std::string::npos) {
        return row["self_pct"].GetDouble();
      }
    }
    return 0.0;
  };
  EXPECT_NEAR(self("work_six()"), 60.0, 5.0);
  EXPECT_NEAR(self("work_one()"), 10.0, 5.0);
  Ran svg = runProcess({kStrobe, "report", db, "-o", file("app.svg")});
  EXPECT_EQ(svg.status, 0) << svg.err;
}

TEST_F(SpansTest, ChromeTraceCarriesNestedSpansOnTheWorkerTracks) {
  ASSERT_EQ(shared().status, 0) << shared().err;
  const std::string db = sharedDb();
  const std::string trace = file("t.trace.json");
  Ran c = runProcess({kStrobe, "report", db, "-o", trace});
  ASSERT_EQ(c.status, 0) << c.err;
  rapidjson::Document d;
  d.Parse(readFile(trace).c_str());
  ASSERT_FALSE(d.HasParseError());
  // Both clocks of the start are there.
  model::Profile p = loadRecording(db);
  EXPECT_EQ(d["otherData"]["start_monotonic_ns"].GetUint64(), p.meta().start_monotonic_ns);
  EXPECT_EQ(d["otherData"]["start_realtime_ns"].GetUint64(), p.meta().start_realtime_ns);
  // Times in ns (the trace prints whole µs: spans and sampled slices are
  // rounded alike, so nesting survives).
  struct Slice {
    int64_t ts, end;
  };
  auto ns = [](const rapidjson::Value& v) { return std::llround(v.GetDouble() * 1000); };
  std::map<int, std::string> track_name;
  std::map<int, std::vector<Slice>> requests, parses, samples;
  for (const auto& e : d["traceEvents"].GetArray()) {
    std::string ph = e["ph"].GetString();
    int tid = e["tid"].GetInt();
    if (ph == "M" && std::string(e["name"].GetString()) == "thread_name") {
      track_name[tid] = e["args"]["name"].GetString();
      continue;
    }
    if (ph != "X") continue;
    Slice s{ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])};
    bool span = e.HasMember("cat") && std::string(e["cat"].GetString()) == "span";
    std::string name = e["name"].GetString();
    if (span && name == "request") requests[tid].push_back(s);
    if (span && name == "parse") parses[tid].push_back(s);
    if (!span) samples[tid].push_back(s);
  }
  size_t total = 0;
  for (const auto& [tid, v] : requests) {
    total += v.size();
    EXPECT_EQ(track_name[tid].rfind("worker ", 0), 0u) << track_name[tid];
  }
  EXPECT_EQ(total, 2000u);
  EXPECT_EQ(requests.size(), 4u);
  // Nested: every parse lies in a request of its thread; no sampled slice
  // crosses a request's start or end (the track nests).
  auto inside = [](const Slice& a, const Slice& b) { return a.ts >= b.ts && a.end <= b.end; };
  auto apart = [](const Slice& a, const Slice& b) { return a.end <= b.ts || a.ts >= b.end; };
  size_t nested = 0, crossing = 0;
  for (const auto& [tid, v] : parses) {
    for (const Slice& s : v) {
      nested += std::any_of(requests[tid].begin(), requests[tid].end(),
                            [&](const Slice& q) { return inside(s, q); });
    }
  }
  EXPECT_EQ(nested, 2000u);
  for (const auto& [tid, v] : samples) {
    for (const Slice& s : v) {
      for (const Slice& q : requests[tid]) crossing += !(inside(s, q) || apart(s, q));
    }
  }
  EXPECT_EQ(crossing, 0u);
}

TEST_F(SpansTest, DisabledBuildReferencesNoStrobeSymbolAndRuns) {
  const std::string exe = kFixtures + "fixture_span_service_disabled";
  Ran nm = runProcess({"/usr/bin/nm", "-a", exe});
  ASSERT_EQ(nm.status, 0) << nm.err;
  EXPECT_EQ(nm.out.find("strobe"), std::string::npos) << "nm shows a strobe symbol";
  Ran dyn = runProcess({"/usr/bin/readelf", "-d", exe});
  EXPECT_EQ(dyn.out.find("libstrobe"), std::string::npos) << dyn.out;
  // The same source linked with libstrobe does reference it (the check can fail).
  Ran linked = runProcess({"/usr/bin/nm", "-D", kService});
  EXPECT_NE(linked.out.find("strobe_span_begin"), std::string::npos);
  Ran r = runProcess({exe, "--usual-us", "50"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parseService(r.out).requests, 2000);
}

// "span_flood: spans N dropped D worst_1000_ns W".
struct Flood {
  unsigned long long spans = 0, dropped = 0, worst_ns = 0;
};
Flood parseFlood(const std::string& out) {
  Flood f;
  size_t at = out.find("span_flood:");
  if (at != std::string::npos) {
    std::sscanf(out.c_str() + at, "span_flood: spans %llu dropped %llu worst_1000_ns %llu",
                &f.spans, &f.dropped, &f.worst_ns);
  }
  return f;
}

TEST_F(SpansTest, AFloodOfSpansIsDroppedAndCountedUnderRecord) {
  const std::string db = file("flood.db");
  Ran r = runProcess({kStrobe, "record", "-o", db, "--", kFlood, "1", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  Flood program = parseFlood(r.out);
  ASSERT_GT(program.spans, 0u);
  model::Profile p = loadRecording(db);
  EXPECT_GT(p.meta().dropped_spans, 0u);
  // Every span the program made is either in the recording or counted.
  EXPECT_EQ(p.spans().size() + p.meta().dropped_spans, program.spans);
  EXPECT_NE(r.err.find(std::to_string(p.meta().dropped_spans) + " spans were not recorded"),
            std::string::npos)
      << r.err;
  Ran text = runProcess({kStrobe, "report", db});
  EXPECT_NE(text.out.find(", " + std::to_string(p.meta().dropped_spans) + " dropped"),
            std::string::npos)
      << text.out;
}

TEST_F(SpansTest, AFloodOfSpansIsDroppedAndCountedInProcess) {
  Ran r = runProcess({kFlood, "1", "2", "--library"});
  ASSERT_EQ(r.status, 0) << r.err;
  Flood f = parseFlood(r.out);
  EXPECT_GT(f.spans, 0u);
  EXPECT_GT(f.dropped, 0u);
  EXPECT_LT(f.dropped, f.spans);
  // Nothing waited on the reader: 1,000 span pairs never took a second.
  EXPECT_LT(f.worst_ns, 1'000'000'000u);
}

// A program whose span reader dies (strobe killed while attached to it)
// runs on to its end without waiting on it. (A command strobe launched is
// sent SIGTERM when strobe dies: docs/USAGE.md, "Where the recording goes".)
TEST_F(SpansTest, KillingStrobeLeavesAnAttachedProgramRunning) {
  const std::string done = file("done");
  Background program({kFlood, "8", "2", "--done", done});
  sleepMs(300);
  Background strobe({kStrobe, "record", "-o", file("k.db"), "-p", std::to_string(program.pid())});
  sleepMs(1500);
  ASSERT_EQ(::kill(strobe.pid(), SIGKILL), 0);
  strobe.wait();
  // The program goes on to its end (it outlives strobe: we cannot wait for
  // it, only for its word).
  ASSERT_TRUE(waitForFile(done, 60)) << "the program did not finish after strobe was killed";
  sleepMs(100);
  Flood f = parseFlood(readFile(done));
  EXPECT_GT(f.spans, 0u);
  EXPECT_LT(f.worst_ns, 1'000'000'000u);
}

TEST_F(SpansTest, AttachReadsSpansAndRolesSetBeforeIt) {
  Background service({kService, "--usual-us", "4000"});
  // The workers have set their roles (the channel exists once the first
  // has) and run requests.
  ASSERT_TRUE(waitForSpanChannel(service.pid(), 5)) << "the service made no span channel";
  sleepMs(300);
  const std::string db = file("attach.db");
  Ran r = runProcess(
      {kStrobe, "record", "-F", "999", "-d", "1s", "-o", db, "-p", std::to_string(service.pid())});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = loadRecording(db);
  EXPECT_GT(p.spans().size(), 20u);
  std::set<std::string> roles;
  for (const model::Thread& t : p.threads()) {
    if (!t.role.empty()) roles.insert(t.role);
  }
  EXPECT_EQ(roles, (std::set<std::string>{"worker 0", "worker 1", "worker 2", "worker 3"}));
  // Spans are those that began after strobe joined: within the recording.
  for (const model::Span& s : p.spans()) {
    EXPECT_LE(s.end_ns, p.meta().duration_ns + 100'000'000);
  }
}

TEST_F(SpansTest, EveryProcessOfTheCommandSendsItsSpans) {
  const std::string db = file("procs.db");
  const std::string cmd = kFlood + " 0.3 1 & " + kFlood + " 0.3 1; wait";
  Ran r = runProcess({kStrobe, "record", "-o", db, "--", "/bin/sh", "-c", cmd});
  ASSERT_EQ(r.status, 0) << r.err;
  model::Profile p = loadRecording(db);
  std::set<int32_t> pids;
  for (const model::Span& s : p.spans()) {
    const model::Thread* t = p.findThread(s.tid);
    if (t != nullptr) pids.insert(t->pid);
  }
  EXPECT_EQ(pids.size(), 2u);
}

TEST_F(SpansTest, SpanFilterErrors) {
  const std::string db = file("rec.db");
  ASSERT_EQ(runProcess({kStrobe, "record", "-o", db, "--", kFlood, "0.05", "1"}).status, 0);
  Ran none = runProcess({kStrobe, "report", db, "--span", "nope"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no span is named 'nope'"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("hint: see the span names with: strobe report FILE --spans"),
            std::string::npos);
  Ran orphan = runProcess({kStrobe, "report", db, "--slowest", "3"});
  EXPECT_EQ(orphan.status, 2);
  EXPECT_NE(orphan.err.find("--slowest needs --span NAME"), std::string::npos) << orphan.err;
  Ran zero = runProcess({kStrobe, "report", db, "--span", "flood", "--slowest", "0"});
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.err.find("--slowest 0 keeps no span"), std::string::npos) << zero.err;
  Ran svg = runProcess({kStrobe, "report", db, "--spans", "-f", "flamegraph"});
  EXPECT_EQ(svg.status, 2);
  EXPECT_NE(svg.err.find("--spans is a table: it has no flamegraph form"), std::string::npos)
      << svg.err;
  Ran bad = runProcess({kStrobe, "report", db, "--span", "flood", "--longer-than", "soon"});
  EXPECT_EQ(bad.status, 2) << bad.err;
}

}  // namespace
}  // namespace strobe::test
