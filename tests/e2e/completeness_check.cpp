#include "completeness_check.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "model/completeness.hpp"

namespace strobe::test {
namespace {

// As reports write a share: never "0.0%" or "100.0%" unless exact.
std::string share(unsigned long long part, unsigned long long total) {
  const double v = 100.0 * static_cast<double>(part) / static_cast<double>(total);
  if (part > 0 && v < 0.1) return "<0.1%";
  if (part < total && v > 99.9) return ">99.9%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

std::string lineAfter(const std::string& text, const std::string& prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return {};
  at += prefix.size();
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

FoldedCompleteness recountFolded(const std::string& folded) {
  FoldedCompleteness c;
  std::istringstream in(folded);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    const unsigned long long w = std::stoull(line.substr(space + 1));
    const std::string stack = line.substr(0, space);
    bool entry = stack == "[kernel]";  // a stack without a user part
    bool missing = false;
    for (size_t at = 0; at <= stack.size();) {
      size_t end = stack.find(';', at);
      if (end == std::string::npos) end = stack.size();
      const std::string frame = stack.substr(at, end - at);
      entry = entry || model::isThreadEntry(frame);
      missing = missing || frame == "[missing caller]";
      at = end + 1;
    }
    c.total += w;
    if (missing) {
      c.missing_caller += w;
    } else if (entry) {
      c.reached += w;
    }
  }
  return c;
}

void checkRecordingCompleteness(const std::vector<std::string>& argv, const Ran& ran) {
  if (argv.size() < 2 || argv[1] != "record") return;
  const std::string& exe = argv[0];
  if (exe != kStrobe && (exe.size() < 7 || exe.substr(exe.size() - 7) != "/strobe")) return;
  std::string db;
  for (size_t i = 2; i + 1 < argv.size() && argv[i] != "--"; ++i) {
    if (argv[i] == "-o" || argv[i] == "--output") db = argv[i + 1];
  }
  // Only a recording: a refused -o (a FIFO, a directory) is left alone.
  if (db.empty() || !std::filesystem::is_regular_file(db)) return;
  SCOPED_TRACE("completeness of the recording " + db);
  Ran report = runProcess({exe, "report", db});
  Ran folded = runProcess({exe, "report", db, "--format", "folded"});
  ASSERT_EQ(report.status, 0) << report.err;
  ASSERT_EQ(folded.status, 0) << folded.err;
  const std::string line = lineAfter(report.out, "\nstacks:    ");
  const FoldedCompleteness c = recountFolded(folded.out);
  if (c.total == 0) {
    EXPECT_EQ(line, "") << report.out;
    return;
  }
  ASSERT_FALSE(line.empty()) << report.out;
  // "X% of the sampled CPU reached the thread's entry" (or "... faults").
  const std::string reached = share(c.reached, c.total) + " of the sampled ";
  EXPECT_EQ(line.substr(0, reached.size()), reached)
      << "the line says: " << line << "\nthe folded stacks: " << c.reached << " of " << c.total
      << " reached an entry";
  EXPECT_NE(line.find(" reached the thread's entry"), std::string::npos) << line;
  const std::string missing = "; " + share(c.missing_caller, c.total) + " skipped the caller";
  if (c.missing_caller > 0) {
    EXPECT_NE(line.find(missing), std::string::npos) << line << "\nexpected " << missing;
  } else {
    EXPECT_EQ(line.find("skipped the caller"), std::string::npos) << line;
  }
  // record's summary printed the same line.
  if (ran.err.find("strobe: stacks: ") != std::string::npos) {
    EXPECT_EQ(lineAfter(ran.err, "strobe: stacks: "), line) << ran.err;
  }
}

}  // namespace strobe::test
