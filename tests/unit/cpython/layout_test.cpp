// The layout table against each installed CPython's own headers (a probe
// compiled with them prints the offsets), 3.13's _Py_DebugOffsets against
// the table (from the file and from a running process), and the probe of
// an interpreter's file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "../../e2e/run_process.hpp"
#include "cpython/interpreter.hpp"
#include "cpython/layout.hpp"
#include "cpython/remote_memory.hpp"
#include "pythons.hpp"

namespace strobe::cpython {
namespace {

using test::installedPythons;
using test::TestPython;

// The probe's "NAME VALUE" lines as a Layout (fields it does not print
// stay kNoField), and its FRAME_OWNED_BY_CSTACK in `owner_cstack`.
Layout probeLayout(const TestPython& py, int& owner_cstack) {
  test::Ran r = test::runProcess({py.probe});
  EXPECT_EQ(r.status, 0) << r.err;
  Layout l;
  owner_cstack = -1;
  std::istringstream in(r.out);
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == "version_hex") {
      l.version_hex = static_cast<uint32_t>(value);
      continue;
    }
    if (name == "owner_cstack") {
      owner_cstack = static_cast<int>(value);
      continue;
    }
    bool known = false;
    for (const LayoutField& f : layoutFields()) {
      if (name == f.name) {
        l.*f.member = static_cast<uint32_t>(value);
        known = true;
      }
    }
    EXPECT_TRUE(known) << "the probe printed a field strobe's Layout lacks: " << name;
  }
  return l;
}

// The interpreter's file: libpython3.N.so next to a pyenv build, else the
// executable itself (Debian's python3.N links it statically).
std::string interpreterFile(const TestPython& py) {
  const std::string mm = "3." + std::to_string(py.minor);
  const size_t bin = py.binary.rfind("/bin/");
  std::string lib = py.binary.substr(0, bin) + "/lib/libpython" + mm + ".so.1.0";
  if (std::ifstream(lib).good()) return lib;
  return py.binary;
}

void checkVersion(int minor) {
  auto pythons = installedPythons(minor);
  if (pythons.empty()) GTEST_SKIP() << test::noPythonReason(minor);
  for (const TestPython& py : pythons) {
    SCOPED_TRACE(py.name);
    if (py.probe.empty()) {
      std::cout << "[ NOTE ] " << py.name << ": no headers to build a layout probe from\n";
      continue;
    }
    int owner_cstack = -1;
    Layout headers = probeLayout(py, owner_cstack);
    ASSERT_NE(headers.version_hex, 0u);
    auto table = tableLayout(headers.version_hex);
    ASSERT_TRUE(table.ok()) << table.error().message;
    EXPECT_EQ(layoutDifference(headers, *table), "");
    if (minor >= 12) EXPECT_EQ(owner_cstack, kOwnerCStack);

    // The file's own Py_Version and symbols give the same layout.
    auto probed = probeInterpreter(0, interpreterFile(py), 0, 0, nullptr);
    if (!probed.ok() && probed.error().kind == ErrorKind::kCorrupt) {
      // A mapping at file offset 0 must exist; a PIE's first segment starts there.
      FAIL() << probed.error().message;
    }
    ASSERT_TRUE(probed.ok()) << probed.error().message;
    EXPECT_EQ(probed->layout.version_hex, headers.version_hex);
    EXPECT_EQ(layoutDifference(probed->layout, headers), "") << probed->layout_source;
    EXPECT_EQ(probed->layout_note, "");
    EXPECT_FALSE(probed->eval_ranges.empty()) << "no _PyEval_EvalFrameDefault in " << probed->path;
    EXPECT_NE(probed->code_type, 0u);
    if (minor >= 13) EXPECT_EQ(probed->layout_source, "_Py_DebugOffsets");
  }
}

TEST(CpythonLayout, Python311MatchesItsHeaders) {
  checkVersion(11);
}
TEST(CpythonLayout, Python312MatchesItsHeaders) {
  checkVersion(12);
}
TEST(CpythonLayout, Python313MatchesItsHeaders) {
  checkVersion(13);
}

// A running 3.13 states the same offsets in its memory as in its file.
TEST(CpythonLayout, Python313DebugOffsetsFromTheProcess) {
  auto pythons = installedPythons(13);
  if (pythons.empty()) GTEST_SKIP() << test::noPythonReason(13);
  const TestPython& py = pythons.front();
  test::Background proc({py.binary, "-c", "import time; print('up', flush=True); time.sleep(60)"});
  ASSERT_NE(test::waitForLine(proc.dir() + "/stdout", "up"), "");
  RemoteMemory mem(proc.pid());
  auto in = findInterpreter(proc.pid(), test::mappedFiles(proc.pid()), &mem);
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_EQ(in->layout_source, "_Py_DebugOffsets");
  EXPECT_EQ(in->layout_note, "");
  std::vector<uint8_t> bytes(kDebugOffsetsSize);
  ASSERT_TRUE(mem.read(in->runtime, bytes.data(), bytes.size()));
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "xdebugpy");
}

TEST(CpythonLayout, VersionsOutsideTheTableAreNamed) {
  auto old = tableLayout(0x030a0df0);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().kind, ErrorKind::kUnsupported);
  EXPECT_EQ(old.error().message,
            "Python 3.10.13 is not one strobe reads frames of (3.11, 3.12, 3.13)");
  auto next = tableLayout(0x030e00a1);
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.error().message,
            "Python 3.14.0a1 is not one strobe reads frames of (3.11, 3.12, 3.13)");
  EXPECT_EQ(versionText(0x030d00c2), "3.13.0rc2");
}

// _Py_DebugOffsets bytes built by hand: the table's 3.13 values, then
// variations a reader must refuse.
std::vector<uint8_t> debugOffsets313() {
  std::vector<uint8_t> b(kDebugOffsetsSize, 0);
  std::memcpy(b.data(), "xdebugpy", 8);
  auto put = [&](size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); };
  put(8, 0x030d00f0);
  const Layout t = *tableLayout(0x030d00f0);
  const std::pair<size_t, uint32_t> fields[] = {{40, t.runtime_interpreters_head},
                                                {64, t.interp_next},
                                                {72, t.interp_threads_head},
                                                {168, t.tstate_next},
                                                {184, t.tstate_current_frame},
                                                {200, t.tstate_native_thread_id},
                                                {232, t.frame_previous},
                                                {240, t.frame_code},
                                                {248, t.frame_instr},
                                                {264, t.frame_owner},
                                                {280, t.code_filename},
                                                {288, t.code_name},
                                                {296, t.code_qualname},
                                                {304, t.code_linetable},
                                                {312, t.code_firstlineno},
                                                {344, t.code_adaptive},
                                                {360, t.object_type},
                                                {520, t.var_size},
                                                {528, t.bytes_data},
                                                {544, t.unicode_state},
                                                {552, t.unicode_length},
                                                {560, t.unicode_ascii_size}};
  for (auto [at, v] : fields) put(at, v);
  return b;
}

TEST(CpythonLayout, DebugOffsetsParsed) {
  auto b = debugOffsets313();
  auto l = debugOffsetsLayout(b.data(), b.size());
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(layoutDifference(*l, *tableLayout(0x030d00f0)), "");

  auto moved = b;
  const uint64_t owner = 71;
  std::memcpy(moved.data() + 264, &owner, 8);
  auto m = debugOffsetsLayout(moved.data(), moved.size());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(layoutDifference(*m, *tableLayout(0x030d00f0)), "frame_owner 71 != 70");
}

TEST(CpythonLayout, DebugOffsetsRefused) {
  auto b = debugOffsets313();
  EXPECT_EQ(debugOffsetsLayout(b.data(), 16).error().kind, ErrorKind::kCorrupt);
  EXPECT_EQ(debugOffsetsLayout(b.data(), 100).error().message,
            "_Py_DebugOffsets cut short (100 bytes)");

  auto cookie = b;
  cookie[0] = 'y';
  EXPECT_EQ(debugOffsetsLayout(cookie.data(), cookie.size()).error().kind, ErrorKind::kCorrupt);

  auto threaded = b;
  threaded[16] = 1;
  auto t = debugOffsetsLayout(threaded.data(), threaded.size());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::kUnsupported);
  EXPECT_EQ(t.error().message,
            "Python 3.13.0 is a free-threaded build, whose frames strobe does not read");

  auto later = b;
  const uint64_t v314 = 0x030e00f0;
  std::memcpy(later.data() + 8, &v314, 8);
  EXPECT_EQ(debugOffsetsLayout(later.data(), later.size()).error().message,
            "_Py_DebugOffsets of Python 3.14.0: strobe reads those of 3.13 only");

  auto wild = b;
  const uint64_t huge = 1ULL << 40;
  std::memcpy(wild.data() + 240, &huge, 8);
  EXPECT_EQ(debugOffsetsLayout(wild.data(), wild.size()).error().kind, ErrorKind::kCorrupt);
}

TEST(CpythonLayout, InterpreterPaths) {
  EXPECT_TRUE(isInterpreterPath("/usr/bin/python3.11"));
  EXPECT_TRUE(isInterpreterPath("/root/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0"));
  EXPECT_TRUE(isInterpreterPath("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"));
  EXPECT_TRUE(isInterpreterPath("/opt/py/bin/python3.13t"));
  EXPECT_FALSE(isInterpreterPath("/usr/bin/python3"));
  EXPECT_FALSE(isInterpreterPath("/usr/lib/libpython3.11.a"));
  EXPECT_FALSE(isInterpreterPath("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(isInterpreterPath("/usr/bin/perl"));
}

TEST(CpythonLayout, NotAnInterpreter) {
  auto r = probeInterpreter(0, "/bin/sh", 0, 0, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
}

}  // namespace
}  // namespace strobe::cpython
