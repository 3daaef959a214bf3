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

}  // namespace
}  // namespace strobe::agent
