// Test helper: the CPython interpreters installed on this machine that the
// CPython tests run (Debian's /usr/bin/python3.N, pyenv's builds under
// $PYENV_ROOT or ~/.pyenv), and the layout probe built against each one's
// headers (layout_probe.c). A test skips, saying why, when the version it
// needs is not installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpython/interpreter.hpp"

namespace strobe::test {

struct TestPython {
  std::string name;    // "debian-3.11", "pyenv-3.12.1"
  std::string binary;  // the interpreter to run
  std::string probe;   // the layout probe built against its headers ("" when none)
  int minor = 0;
};

// Every installed interpreter of 3.`minor`, Debian's first.
std::vector<TestPython> installedPythons(int minor);
// Why none is installed, for GTEST_SKIP.
std::string noPythonReason(int minor);

// The path of a CPython test script (tests/unit/cpython/scripts/NAME).
std::string cpythonScript(const std::string& name);

// The file mappings of /proc/PID/maps.
std::vector<cpython::MappedFile> mappedFiles(int pid);

// Waits up to 10 s for the file at `path` to hold a line that contains
// `needle`; returns that line ("" when none came).
std::string waitForLine(const std::string& path, const std::string& needle);

}  // namespace strobe::test
