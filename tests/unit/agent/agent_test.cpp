// The agent's parts that need no kernel: windows (each request its own,
// bounded), the push queue (drops the oldest, counts), the push URL and
// query, and the selection of a window's samples by time and process.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "agent/encode.hpp"
#include "agent/push_queue.hpp"
#include "agent/pusher.hpp"
#include "agent/windows.hpp"

namespace strobe::agent {
namespace {

TEST(WindowsTest, EachRequestGetsItsOwnWindowUpToTheLimit) {
  Windows w;
  std::vector<std::future<Result<std::string>>> futures;
  for (size_t i = 0; i < kMaxOpenWindows; ++i) {
    auto f = w.open(100 + i, 200 + i, {});
    ASSERT_TRUE(f.ok());
    futures.push_back(std::move(*f));
  }
  auto refused = w.open(1, 2, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "16 profiles are being taken already");
  EXPECT_EQ(w.earliestSince(), 100u);
  // Windows ending at or before 205 are due: 200..205 (6 of them).
  auto due = w.takeDue(205);
  EXPECT_EQ(due.size(), 6u);
  EXPECT_EQ(w.openCount(), kMaxOpenWindows - 6);
  EXPECT_EQ(w.earliestSince(), 106u);
  for (auto& d : due) d->reply.set_value(std::string("profile"));
  EXPECT_EQ(*futures[0].get(), "profile");
  w.closeAll(makeError("stopped"));
  EXPECT_EQ(futures[6].get().error().message, "stopped");
  EXPECT_EQ(w.earliestSince(), UINT64_MAX);
  EXPECT_FALSE(w.open(1, 2, {}).ok());
}

TEST(PushQueueTest, DropsTheOldestWhenFullAndCounts) {
  PushQueue q(2);
  EXPECT_FALSE(q.add(Push{"a", 1, 2}).has_value());
  EXPECT_FALSE(q.add(Push{"b", 2, 3}).has_value());
  auto dropped = q.add(Push{"c", 3, 4});
  ASSERT_TRUE(dropped.has_value());
  EXPECT_EQ(dropped->body, "a");
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.dropped(), 1u);
  auto front = q.front(std::chrono::milliseconds(0));
  ASSERT_TRUE(front.has_value());
  EXPECT_EQ(front->body, "b");
  // A front that was dropped meanwhile is not popped by mistake.
  q.add(Push{"d", 4, 5});  // drops b
  q.popIf(2, 3);
  EXPECT_EQ(q.size(), 2u);
  q.popIf(3, 4);
  EXPECT_EQ(q.front(std::chrono::milliseconds(0))->body, "d");
  q.stop();
  EXPECT_FALSE(q.front(std::chrono::milliseconds(1000)).has_value());
  EXPECT_FALSE(q.sleepFor(std::chrono::milliseconds(1000)));
}

TEST(PusherTest, ParsesTheBaseUrl) {
  auto t = parsePushUrl("http://pyroscope:4040");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->scheme_host_port, "http://pyroscope:4040");
  EXPECT_EQ(t->base_path, "");
  t = parsePushUrl("http://proxy/pyroscope/ingest");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->scheme_host_port, "http://proxy");
  EXPECT_EQ(t->base_path, "/pyroscope");
  EXPECT_EQ(parsePushUrl("https://x").error().message, "--push https://x: https is not supported");
  EXPECT_EQ(parsePushUrl("pyroscope:4040").error().message,
            "--push pyroscope:4040 is not an http:// URL");
  EXPECT_EQ(parsePushUrl("http://h:99999").error().message, "--push http://h:99999 has a bad port");
  EXPECT_EQ(parsePushUrl("http://h/x?a=b").error().message,
            "--push http://h/x?a=b is not a base URL");
}

TEST(PusherTest, IngestQueryFollowsPyroscope) {
  PushTarget t = *parsePushUrl("http://p:4040/base/");
  t.app = "web.cpu";
  t.labels = {{"host", "h1"}, {"env", "prod"}};
  t.sample_rate = 99;
  EXPECT_EQ(ingestPath(t, Push{"", 1700000000, 1700000015}),
            "/base/ingest?name=web.cpu%7Bhost%3Dh1%2Cenv%3Dprod%7D&from=1700000000"
            "&until=1700000015&format=pprof&sampleRate=99&spyName=strobe");
}

TEST(PusherTest, ChecksNamesAndLabels) {
  EXPECT_TRUE(checkAppName("web.cpu-1").ok());
  EXPECT_FALSE(checkAppName("web{x}").ok());
  EXPECT_TRUE(checkLabel("env", "prod").ok());
  EXPECT_EQ(checkLabel("1x", "a").error().message, "--label key '1x' is not a label name");
  EXPECT_EQ(checkLabel("env", "a,b").error().message,
            "--label env=a,b: the value is empty or holds {, }, , or =");
}

TEST(SelectTest, KeepsTheWindowAndTheProcess) {
  model::Profile p;
  p.meta().start_realtime_ns = 1'000'000'000'000;
  p.setThread({.tid = 10, .pid = 10, .name = "server"});
  p.setThread({.tid = 11, .pid = 10, .name = "worker"});
  p.setThread({.tid = 20, .pid = 20, .name = "batch"});
  for (uint64_t t : {50u, 100u, 150u, 200u}) {
    for (int32_t tid : {10, 11, 20}) p.addSample({.time_ns = t, .tid = tid, .weight = 1});
  }
  model::Profile all = selectSamples(p, 100, 200, {});
  EXPECT_EQ(all.samples().size(), 6u);  // 100 and 150, three threads
  EXPECT_EQ(all.meta().duration_ns, 100u);
  EXPECT_EQ(all.meta().start_realtime_ns, 1'000'000'000'100u);
  model::Profile server = selectSamples(p, 0, 1000, Selection{.pid = 10});
  EXPECT_EQ(server.samples().size(), 8u);
  model::Profile by_name = selectSamples(p, 0, 1000, Selection{.comm = "batch"});
  ASSERT_EQ(by_name.samples().size(), 4u);
  EXPECT_EQ(by_name.samples()[0].tid, 20);
  // A thread's own name is not its process's: "worker" selects nothing.
  EXPECT_TRUE(selectSamples(p, 0, 1000, Selection{.comm = "worker"}).samples().empty());
  EXPECT_TRUE(encodePprof(server, {{"host", "h"}}).ok());
}

// A window's profile holds what its samples use and nothing else, so naming
// it reads only their modules; lines already found and roles come along.
TEST(SelectTest, CopiesOnlyWhatTheSamplesUse) {
  model::Profile p;
  p.setThread({.tid = 10, .pid = 10, .name = "server", .role = "worker 1"});
  p.setThread({.tid = 20, .pid = 20, .name = "batch"});
  const model::ModuleId libc = p.internModule("/usr/lib/libc.so.6", "ab");
  const model::ModuleId app = p.internModule("/usr/bin/app", "cd");
  const model::ModuleId other = p.internModule("/usr/bin/other", "ef");
  const model::LocationId main_loc = p.internLocation(app, 0x100, 0x400100);
  const model::LocationId leaf = p.internLocation(libc, 0x200, 0x7f0200);
  const model::LocationId elsewhere = p.internLocation(other, 0x300, 0x500300);
  const model::FunctionId f = p.internFunction("main", "main", "app.cpp", 3);
  p.mutableLocations()[main_loc].lines.push_back({.function = f, .line = 7});
  const model::StackId root = p.internStack(model::kNone, main_loc);
  const model::StackId s1 = p.internStack(root, leaf);
  const model::StackId s2 = p.internStack(model::kNone, elsewhere);
  p.addSample({.time_ns = 100, .tid = 10, .stack = s1, .weight = 1});
  p.addSample({.time_ns = 300, .tid = 20, .stack = s2, .weight = 1});

  model::Profile w = selectSamples(p, 50, 200, {});
  ASSERT_EQ(w.samples().size(), 1u);
  EXPECT_EQ(w.modules().size(), 2u);  // app and libc, not other
  ASSERT_EQ(w.locations().size(), 2u);
  ASSERT_EQ(w.stacks().size(), 2u);
  std::vector<std::string> frames;
  w.forEachFrame(w.samples()[0].stack, [&](model::LocationId l) {
    const model::Location& loc = w.locations()[l];
    frames.push_back(std::string(w.moduleName(loc.module)) + "+" + std::to_string(loc.offset));
  });
  EXPECT_EQ(frames, (std::vector<std::string>{"libc.so.6+512", "app+256"}));
  const model::StackId leaf_node = w.samples()[0].stack;
  const model::Location& named = w.locations()[w.stacks()[w.stacks()[leaf_node].parent].location];
  ASSERT_EQ(named.lines.size(), 1u);
  EXPECT_EQ(w.str(w.functions()[named.lines[0].function].name), "main");
  EXPECT_EQ(named.lines[0].line, 7u);
  ASSERT_EQ(w.threads().size(), 1u);
  EXPECT_EQ(w.threads()[0].role, "worker 1");
}

}  // namespace
}  // namespace strobe::agent
