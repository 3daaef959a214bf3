// FrameWalker and CodeReader on a running interpreter of each installed
// version, against what CPython says of its own threads
// (scripts/frames_target.py prints sys._current_frames(): each frame's
// qualified name, file, line and code object address): the same threads,
// frames, code objects, names and lines, and where eval-loop activations
// begin.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "../../e2e/run_process.hpp"
#include "cpython/code_reader.hpp"
#include "cpython/frame_walker.hpp"
#include "pythons.hpp"

namespace strobe::cpython {
namespace {

struct Expected {
  std::string qualname, file;
  uint32_t line = 0;
  uint64_t code = 0;
};

void walkVersion(int minor) {
  auto pythons = test::installedPythons(minor);
  if (pythons.empty()) GTEST_SKIP() << test::noPythonReason(minor);
  for (const test::TestPython& py : pythons) {
    SCOPED_TRACE(py.name);
    test::Background proc({py.binary, test::cpythonScript("frames_target.py")});
    const std::string report = test::waitForLine(proc.dir() + "/stdout", "threads");
    ASSERT_NE(report, "") << test::readFile(proc.dir() + "/stderr");
    rapidjson::Document doc;
    doc.Parse(report.c_str());
    ASSERT_FALSE(doc.HasParseError());

    RemoteMemory mem(proc.pid());
    auto in = findInterpreter(proc.pid(), test::mappedFiles(proc.pid()), &mem);
    ASSERT_TRUE(in.ok()) << in.error().message;
    FrameWalker walker(*in, mem);
    auto threads = walker.walkAll(256);
    ASSERT_TRUE(threads.ok()) << threads.error().message;
    CodeReader reader(*in, mem);

    for (const auto& t : doc["threads"].GetArray()) {
      const auto tid = static_cast<pid_t>(t["tid"].GetInt64());
      SCOPED_TRACE("thread " + std::to_string(tid));
      std::vector<Expected> expected;
      for (const auto& f : t["frames"].GetArray()) {
        expected.push_back({f["qualname"].GetString(), f["file"].GetString(),
                            static_cast<uint32_t>(f["line"].GetInt()), f["code"].GetUint64()});
      }
      const ThreadFrames* walked = nullptr;
      for (const ThreadFrames& w : *threads) {
        if (w.tid == tid) walked = &w;
      }
      ASSERT_NE(walked, nullptr) << "no thread state with native_thread_id " << tid;
      EXPECT_FALSE(walked->truncated);
      ASSERT_EQ(walked->frames.size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE("frame " + std::to_string(i) + " " + expected[i].qualname);
        const RuntimeFrame& f = walked->frames[i];
        EXPECT_EQ(f.code, expected[i].code);
        auto code = reader.code(f.code);
        ASSERT_TRUE(code.ok()) << code.error().message;
        EXPECT_EQ((*code)->qualname, expected[i].qualname);
        EXPECT_EQ((*code)->filename, expected[i].file);
        EXPECT_EQ((*code)->lineAt(f.offset), expected[i].line);
      }
      // The thread's oldest frame began its outermost activation.
      EXPECT_NE(walked->frames.back().flags & kFrameEntry, 0);
      if (expected.front().qualname == "inner") {
        // The main thread: <module> -> outer -> middle -> (C: list, map) -> inner.
        std::vector<uint16_t> flags;
        for (const RuntimeFrame& f : walked->frames) flags.push_back(f.flags);
        EXPECT_EQ(flags, (std::vector<uint16_t>{kFrameEntry, 0, 0, kFrameEntry}));
      }
    }
    EXPECT_EQ(reader.stats().failures, 0u);
  }
}

TEST(CpythonFrameWalker, Python311) {
  walkVersion(11);
}
TEST(CpythonFrameWalker, Python312) {
  walkVersion(12);
}
TEST(CpythonFrameWalker, Python313) {
  walkVersion(13);
}

}  // namespace
}  // namespace strobe::cpython
