#include "perf_data_util.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>

namespace strobe::test {
namespace {

std::string which(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// "work_six()" -> "work_six", "ns::f(int) const" -> "ns::f".
std::string withoutParameters(const std::string& name) {
  if (name.empty() || name.back() == ']') return name;
  const size_t paren = name.find('(');
  return paren == std::string::npos || paren == 0 ? name : name.substr(0, paren);
}

// One CSV row's fields ("..." quoted fields may hold commas and "").
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

void PerfDataTest::SetUp() {
  perf_ = which("perf");
  if (perf_.empty()) {
    GTEST_SKIP() << "perf is not installed (scripts/deps.sh test installs linux-perf)";
  }
  dir_ = makeTempDir();
  home_ = dir_ + "/home";
  ::mkdir(home_.c_str(), 0700);
  // -B: see record().
  Ran probe =
      perf({"record", "-q", "-B", "-e", "cpu-clock", "-o", dir_ + "/probe.data", "--", "true"});
  if (probe.status != 0) GTEST_SKIP() << "perf record refuses to run here: " << probe.err;
}

void PerfDataTest::TearDown() {
  if (!dir_.empty()) removeTree(dir_);
}

Ran PerfDataTest::perf(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"/usr/bin/env", "HOME=" + home_, perf_};
  argv.insert(argv.end(), args.begin(), args.end());
  return runProcess(argv);
}

Ran PerfDataTest::strobe(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"/usr/bin/env", "HOME=" + home_, kStrobe};
  argv.insert(argv.end(), args.begin(), args.end());
  return runProcess(argv);
}

Ran PerfDataTest::record(const std::string& name, const std::vector<std::string>& mode,
                         const std::vector<std::string>& command) const {
  // -B: perf 6.1 on this kernel often aborts (a stack overflow in its
  // build-id code) when it collects the build-ids at the end of a run;
  // the tests of the build-id cache record with --buildid-mmap instead.
  std::vector<std::string> args = {"record", "-q", "-B", "-e", "cpu-clock", "-F", "999"};
  args.insert(args.end(), mode.begin(), mode.end());
  args.insert(args.end(), {"-o", path(name), "--"});
  args.insert(args.end(), command.begin(), command.end());
  return perf(args);
}

Shares PerfDataTest::perfShares(const std::string& data, const std::vector<std::string>& args,
                                const std::string& event) const {
  // Without -q when one event's table is wanted: its header names the event.
  // Sorted by comm too: perf keys an entry by its sort keys alone and filters
  // (--comms) by the command of the entry's first sample, so under --sort
  // sym a symbol first sampled in the filtered command also counts every
  // other command's samples of it (libc's and the kernel's, on a busy -a).
  std::vector<std::string> argv = {"report", "-i",       data, "--stdio", "--no-children",
                                   "--sort", "comm,sym", "-g", "none"};
  if (event.empty()) argv.push_back("-q");
  argv.insert(argv.end(), args.begin(), args.end());
  Ran r = perf(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  // "    59.57%  fixture_shares  [.] work_six" / "  2.61%  [k] ksys_read"
  // (perf leaves the comm column out when one command is left).
  static const std::regex kRow(R"(^\s*([0-9.]+)%\s+(?:.*?\s)?\[[^\]]\]\s+(.*?)\s*$)");
  Shares s;
  double sum = 0;
  static const std::regex kEventHeader(R"(^# Samples: .* of event '([^']*)'.*$)");
  bool in_event = event.empty();
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!event.empty() && std::regex_match(line, m, kEventHeader)) {
      const std::string name = m[1];
      in_event = name == event || name.substr(0, name.find(':')) == event;
      continue;
    }
    if (!in_event || !std::regex_match(line, m, kRow)) continue;
    const double pct = std::stod(m[1]);
    s[withoutParameters(m[2])] += pct;
    sum += pct;
  }
  if (!args.empty() && sum > 0) {
    for (auto& [name, pct] : s) pct = 100.0 * pct / sum;
  }
  return s;
}

Shares PerfDataTest::strobeShares(const std::string& file,
                                  const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"report", file, "--format", "csv", "--top", "0", "--no-inline"};
  argv.insert(argv.end(), args.begin(), args.end());
  Ran r = strobe(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  Shares s;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in,
               line);  // rank,name,system_name,file,line,module,self_ns,self_samples,self_pct,...
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csvFields(line);
    if (f.size() < 9) continue;
    s[withoutParameters(f[1])] += std::stod(f[8]);
  }
  return s;
}

FoldedCompleteness PerfDataTest::completeness(const std::string& file,
                                              const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"report", file, "--format", "folded"};
  argv.insert(argv.end(), args.begin(), args.end());
  Ran r = strobe(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  return recountFolded(r.out);
}

void PerfDataTest::expectSharesAgree(const Shares& perf, const Shares& strobe,
                                     const std::vector<std::string>& names, double points) {
  for (const std::string& n : names) {
    auto p = perf.find(n);
    auto s = strobe.find(n);
    ASSERT_NE(p, perf.end()) << "perf report has no " << n;
    ASSERT_NE(s, strobe.end()) << "strobe report has no " << n;
    EXPECT_NEAR(s->second, p->second, points) << n;
  }
}

double reachedPct(const FoldedCompleteness& c) {
  return c.total == 0 ? 0.0 : 100.0 * static_cast<double>(c.reached) / static_cast<double>(c.total);
}

double missingCallerPct(const FoldedCompleteness& c) {
  return c.total == 0
             ? 0.0
             : 100.0 * static_cast<double>(c.missing_caller) / static_cast<double>(c.total);
}

}  // namespace strobe::test
