// Test helper: a format's whole output for a profile, as a string (through
// writeFormat into a memory stream); a failed write fails the calling test.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "output/format.hpp"

namespace strobe::test {

inline std::string render(const model::Profile& p, output::Format f,
                          const output::ReportOptions& opt = {}) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* file = open_memstream(&buf, &len);
  Status st = output::writeFormat(p, f, opt, file);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().describe());
  std::fclose(file);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

// The lines of a text output.
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace strobe::test
