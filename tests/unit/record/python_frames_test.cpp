// PythonFrames on running interpreters: found from the process's mappings,
// frames (read here by cpython::FrameWalker, as the BPF program reads them)
// named into the model with CPython's own names and lines; an interpreter
// strobe does not read named in one note; frames of a process that exited.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "../../e2e/run_process.hpp"
#include "../cpython/pythons.hpp"
#include "cpython/frame_walker.hpp"
#include "model/frames.hpp"
#include "model/interpreter_frames.hpp"
#include "record/python_frames.hpp"

namespace strobe::record {
namespace {

void feedMappings(PythonFrames& frames, pid_t pid) {
  for (const cpython::MappedFile& m : test::mappedFiles(pid)) {
    frames.onMapping(pid, m.start, m.pgoff, m.path);
  }
}

TEST(PythonFrames, NamesFramesAsCPythonDoes) {
  int versions = 0;
  for (int minor : {11, 12, 13}) {
    auto pythons = test::installedPythons(minor);
    if (pythons.empty()) {
      std::cout << "[ NOTE ] " << test::noPythonReason(minor) << "\n";
      continue;
    }
    ++versions;
    const test::TestPython& py = pythons.front();
    SCOPED_TRACE(py.name);
    // Started in the scripts' folder: inner's file, "frames_helper.py", is
    // relative to it (strobe names it absolute).
    const std::string script = test::cpythonScript("frames_target.py");
    const std::string dir = script.substr(0, script.rfind('/'));
    test::Background proc({"/bin/sh", "-c", "cd " + dir + " && exec " + py.binary + " " + script});
    const std::string report = test::waitForLine(proc.dir() + "/stdout", "threads");
    ASSERT_NE(report, "");
    rapidjson::Document doc;
    doc.Parse(report.c_str());

    PythonFrames frames;
    feedMappings(frames, proc.pid());
    EXPECT_EQ(frames.takeNotes(), std::vector<std::string>{});
    EXPECT_EQ(frames.takeFound(), std::vector<pid_t>{proc.pid()});
    const cpython::Interpreter* in = frames.interpreter(proc.pid());
    ASSERT_NE(in, nullptr);
    cpython::RemoteMemory mem(proc.pid());
    auto walked = cpython::FrameWalker(*in, mem).walkAll(256);
    ASSERT_TRUE(walked.ok());

    model::Profile p;
    for (const auto& t : doc["threads"].GetArray()) {
      const auto tid = static_cast<pid_t>(t["tid"].GetInt64());
      const cpython::ThreadFrames* w = nullptr;
      for (const auto& x : *walked) {
        if (x.tid == tid) w = &x;
      }
      ASSERT_NE(w, nullptr);
      // Root first into the stack trie, as the converter interns a stack.
      model::StackId stack = model::kNone;
      for (auto f = w->frames.rbegin(); f != w->frames.rend(); ++f) {
        stack = p.internStack(stack, frames.locate(p, proc.pid(), *f));
      }
      p.addSample(model::Sample{0, tid, 0, stack, 1000});
      // Leaf first, as CPython listed them.
      size_t i = 0;
      model::forEachDisplayFrame(p, stack, false, [&](const model::Frame& fr) {
        ASSERT_LT(i, t["frames"].Size());
        const auto& want = t["frames"][static_cast<rapidjson::SizeType>(i++)];
        ASSERT_NE(fr.line, nullptr);
        const model::Function& fn = p.functions()[fr.line->function];
        EXPECT_EQ(p.str(fn.name), want["qualname"].GetString());
        std::string file = want["file"].GetString();
        if (file == "frames_helper.py") file = dir + "/" + file;
        EXPECT_EQ(p.str(fn.file), file);
        EXPECT_EQ(p.str(model::lineFile(p, *fr.line)), file);
        EXPECT_EQ(fr.line->line, static_cast<uint32_t>(want["line"].GetInt()));
        EXPECT_TRUE(model::isPythonLocation(p, fr.location));
      });
      EXPECT_EQ(i, t["frames"].Size());
    }
    const PythonFramesStats s = frames.stats();
    EXPECT_EQ(s.unnamed, 0u);
    EXPECT_EQ(s.processes, 1u);
    EXPECT_GT(s.code_objects, 5u);
    // The same frames again: nothing more is read.
    const uint64_t named = s.code_objects;
    frames.nextEpoch();
    for (const auto& w : *walked) {
      for (const auto& f : w.frames) frames.locate(p, proc.pid(), f);
    }
    EXPECT_EQ(frames.stats().code_objects, named);
    EXPECT_EQ(frames.stats().replaced, 0u);

    // The process exits: code objects not named before cannot be.
    proc.stop(SIGKILL);
    cpython::RuntimeFrame gone{0x1000, 0, 0};
    const model::LocationId l = frames.locate(p, proc.pid(), gone);
    EXPECT_EQ(p.str(p.functions()[p.locations()[l].lines[0].function].name), kUnnamedPythonCode);
    EXPECT_EQ(frames.stats().unnamed, 1u);
  }
  if (versions == 0) GTEST_SKIP() << "no CPython 3.11-3.13 installed";
}

TEST(PythonFrames, AnInterpreterStrobeDoesNotReadIsNamedOnce) {
  auto pythons = test::installedPythons(10);
  if (pythons.empty()) GTEST_SKIP() << test::noPythonReason(10);
  const test::TestPython& py = pythons.front();
  test::Background proc({py.binary, "-c", "import time; print('up', flush=True); time.sleep(60)"});
  ASSERT_NE(test::waitForLine(proc.dir() + "/stdout", "up"), "");
  PythonFrames frames;
  feedMappings(frames, proc.pid());
  feedMappings(frames, proc.pid());
  const auto notes = frames.takeNotes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find(": Python 3.10 is not one"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("is not one strobe reads frames of (3.11, 3.12, 3.13); its Python "
                          "frames are not shown"),
            std::string::npos)
      << notes[0];
  EXPECT_EQ(frames.interpreter(proc.pid()), nullptr);
  EXPECT_TRUE(frames.takeFound().empty());
}

}  // namespace
}  // namespace strobe::record
