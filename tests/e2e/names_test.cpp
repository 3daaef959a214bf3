// End to end: how `strobe report` names and counts the functions of
// fixture_names (two lambdas on std::threads, a function gcc splits into a
// header and a .part.0 clone, malloc and free, a loop included from another
// file), and the views that show them: --callers/--callees, --by
// module/thread/line, json/csv, text width.
// One recording serves every test; shares within tolerances.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace strobe::test {
namespace {

const std::string kNames = kFixtures + "fixture_names";

// The report's rows by name, the heaviest of a name (--by line has several)
// with how many there are (text table, no width limit: stdout is a pipe).
// Rows are "SELF%[*] TOTAL% TIME UNIT NAME  LOCATION": the name is the text
// between the time and the two spaces before the location.
struct Row {
  double self = 0;
  double total = 0;
  std::string rest;  // name and location
  int count = 0;     // rows with this name
};

std::map<std::string, Row> rowsByName(const std::string& report) {
  std::map<std::string, Row> rows;
  bool table = false;
  for (const std::string& l : lines(report)) {
    if (l.rfind(" SELF%", 0) == 0) {
      table = true;
      continue;
    }
    if (!table || l.empty() || l[0] == '*') continue;
    std::istringstream in(l);
    std::string self, total, time, unit;
    in >> self >> total >> time;
    if (time != "0") in >> unit;  // "1.23 s", "45.6 ms", "789 us"
    std::string rest;
    std::getline(in, rest);
    size_t start = rest.find_first_not_of(' ');
    rest = start == std::string::npos ? "" : rest.substr(start);
    // The name ends where two spaces start the location column.
    size_t gap = rest.find("  ");
    std::string name = gap == std::string::npos ? rest : rest.substr(0, gap);
    Row& r = rows[name];
    if (r.count++ > 0) continue;  // rows come heaviest first: keep the first
    r.self = std::atof(self.c_str());
    r.total = std::atof(total.c_str());
    r.rest = rest;
  }
  return rows;
}

class NamesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SharedRun shared =
        runOnce("names", {kStrobe, "record", "-F", "1999", "-o", "{dir}/names.db", "--", kNames});
    dir_ = new std::string(shared.dir);
    const Ran& rec = shared.ran;
    if (rec.status != 0 && rec.err.find("perf_event") != std::string::npos) {
      skip_ = new std::string("perf_event refused here: " + rec.err);
      return;
    }
    ASSERT_EQ(rec.status, 0) << rec.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete skip_;
    skip_ = nullptr;
  }
  void SetUp() override {
    if (skip_ != nullptr) GTEST_SKIP() << *skip_;
  }
  static std::string db() { return *dir_ + "/names.db"; }
  static std::string report(std::vector<std::string> args) {
    std::vector<std::string> argv = {kStrobe, "report", db()};
    argv.insert(argv.end(), args.begin(), args.end());
    Ran r = runProcess(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  static std::string* dir_;
  static std::string* skip_;
};
std::string* NamesTest::dir_ = nullptr;
std::string* NamesTest::skip_ = nullptr;

const char* const kLambda1 = "main::{lambda(int)#1}::operator()";
const char* const kLambda2 = "main::{lambda(int)#2}::operator()";
const char* const kProcessEvents = "process_events(unsigned long, int)";

TEST_F(NamesTest, InlinedLambdasAreNamedByTheirQualifiedNames) {
  auto rows = rowsByName(report({"--top", "0"}));
  // lambda-a burns 2 units per round, lambda-b 1, main's process_events 2
  // and included_loop 1 (and malloc and free a little): 2/6, 1/6.
  ASSERT_TRUE(rows.count(kLambda1)) << report({"--top", "0"});
  ASSERT_TRUE(rows.count(kLambda2)) << report({"--top", "0"});
  EXPECT_NEAR(rows[kLambda1].self, 32, 8);
  EXPECT_NEAR(rows[kLambda2].self, 16, 6);
  for (const auto& [name, r] : rows) {
    EXPECT_NE(name, "operator()") << "a short DWARF name left: " << r.rest;
    EXPECT_EQ(r.count, 1) << "two rows named " << name;
  }
  // std::thread's own operator() is another function, above the lambdas.
  bool invoker = false;
  for (const auto& [name, r] : rows) {
    if (name.rfind("std::thread::_Invoker<", 0) == 0 &&
        name.find(">::operator()") != std::string::npos) {
      invoker = true;
      EXPECT_NEAR(r.total, rows[kLambda1].total + rows[kLambda2].total, 3) << name;
    }
  }
  EXPECT_TRUE(invoker) << "no std::thread::_Invoker<...>::operator() row";
}

TEST_F(NamesTest, NoStackShowsAFunctionTwiceUnlessItRecursed) {
  // The fixture has no recursion: a name twice on one folded stack would
  // be two functions under one name, or a clone read as its own caller.
  std::string folded = report({"--format", "folded"});
  for (const std::string& l : lines(folded)) {
    std::set<std::string> seen;
    std::string stack = l.substr(0, l.rfind(' '));
    std::istringstream in(stack);
    for (std::string frame; std::getline(in, frame, ';');) {
      // An unresolved address (module+0x..., [unknown]+0x...) is no
      // function: a frame-pointer walk through a thread's first
      // instructions can repeat one garbage address.
      if (frame.find("+0x") != std::string::npos) continue;
      EXPECT_TRUE(seen.insert(frame).second) << frame << " twice in " << l;
    }
  }
}

TEST_F(NamesTest, AClonedFunctionIsOneFunction) {
  Ran nm = runProcess({"/usr/bin/nm", kNames});
  ASSERT_NE(nm.out.find("_Z14process_eventsmi.part.0"), std::string::npos)
      << "gcc did not clone process_events here; the fixture cannot show clones:\n"
      << nm.out;
  auto rows = rowsByName(report({"--top", "0"}));
  ASSERT_TRUE(rows.count(kProcessEvents));
  EXPECT_EQ(rows[kProcessEvents].count, 1);
  EXPECT_NEAR(rows[kProcessEvents].total, 32, 9) << "the header and its clone: one function";
  // Its callers: main, never itself.
  std::string callers = report({"--callers", kProcessEvents});
  EXPECT_NE(callers.find("callers of process_events(unsigned long, int) (names_clone.cpp:"),
            std::string::npos)
      << callers;
  auto ls = lines(callers);
  bool header = false;
  int rows_after = 0;
  for (const std::string& l : ls) {
    if (l.find("CALLER") != std::string::npos) {
      header = true;
      continue;
    }
    if (!header || l.empty()) continue;
    ++rows_after;
    EXPECT_EQ(l.find("process_events"), std::string::npos) << "listed as its own caller: " << l;
  }
  EXPECT_GE(rows_after, 1) << callers;
  EXPECT_NE(callers.find("main (names.cpp:"), std::string::npos) << callers;
}

TEST_F(NamesTest, LibcFunctionsHaveTheirPublicNamesWithoutVersions) {
  std::string folded = report({"--format", "folded"});
  std::set<std::string> names;
  for (const std::string& l : lines(folded)) {
    std::istringstream in(l.substr(0, l.rfind(' ')));
    for (std::string frame; std::getline(in, frame, ';');) names.insert(frame);
  }
  for (const std::string& n : names) {
    EXPECT_EQ(n.find("@"), std::string::npos) << "a symbol version in " << n;
    EXPECT_NE(n.rfind("__GI_", 0), 0u) << "an internal alias: " << n;
    EXPECT_NE(n, "cfree") << "free's old alias";
    EXPECT_NE(n, "__libc_malloc");
  }
  EXPECT_TRUE(names.count("malloc") || names.count("free"))
      << "the fixture's malloc/free loop was not sampled under its public names";
}

TEST_F(NamesTest, SourcePathsAreNormalized) {
  std::string json = report({"--format", "json", "--top", "0", "--by", "line"});
  EXPECT_EQ(json.find("/./"), std::string::npos) << json;
  EXPECT_EQ(json.find("/../"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"./"), std::string::npos) << json;
}

TEST_F(NamesTest, ALineInAnotherFileThanItsFunctionKeepsItsFile) {
  // included_loop is declared in names.cpp; its loop's lines are in
  // names_body.inc, where --by line must put them (not at line 0).
  int line = lineOf(STROBE_SOURCE_DIR "/tests/fixtures/names_body.inc", "the included loop");
  ASSERT_GT(line, 0);
  auto rows = rowsByName(report({"--by", "line", "--top", "0"}));
  ASSERT_TRUE(rows.count("included_loop(unsigned long)")) << report({"--by", "line"});
  const Row& r = rows["included_loop(unsigned long)"];
  EXPECT_NE(r.rest.find("names_body.inc:" + std::to_string(line)), std::string::npos) << r.rest;
  EXPECT_GT(r.self, 5) << r.rest;
}

TEST_F(NamesTest, CallersMatchAFunctionExactlyElseOneTablePerMatch) {
  // "main" is a whole name: one table, not every name containing "main".
  std::string main = report({"--callees", "main"});
  EXPECT_EQ(main.find("no function is named"), std::string::npos) << main;
  size_t tables = 0;
  for (const std::string& l : lines(main)) tables += l.rfind("callees of ", 0) == 0;
  EXPECT_EQ(tables, 1u) << main;
  // "operator()" names no function: a table for each that contains it.
  std::string part = report({"--callees", "operator()"});
  EXPECT_NE(part.find("no function is named 'operator()'"), std::string::npos) << part;
  EXPECT_NE(part.find(std::string("callees of ") + kLambda1), std::string::npos) << part;
  EXPECT_NE(part.find(std::string("callees of ") + kLambda2), std::string::npos) << part;
  // Each table's shares are of its own function: (self) is nearly all of a
  // lambda (the rest is its time in the kernel, a [kernel] callee).
  auto ls = lines(part);
  for (size_t i = 0; i + 2 < ls.size(); ++i) {
    if (ls[i].rfind(std::string("callees of ") + kLambda1, 0) != 0) continue;
    EXPECT_GE(std::stod(ls[i + 2]), 95.0) << ls[i + 2];
    EXPECT_NE(ls[i + 2].find("(self)"), std::string::npos) << ls[i + 2];
  }
}

TEST_F(NamesTest, ModuleRowsShowTheirPathAndThreadRowsTheirCpu) {
  std::string modules = report({"--by", "module", "--top", "0"});
  auto rows = rowsByName(modules);
  ASSERT_TRUE(rows.count("fixture_names")) << modules;
  const std::string& row = rows["fixture_names"].rest;
  const std::string path = "/tests/fixtures/fixture_names";
  EXPECT_TRUE(row.size() > path.size() && row.substr(row.size() - path.size()) == path)
      << "no module path as LOCATION: " << row;
  std::string threads = report({"--by", "thread", "--top", "0"});
  EXPECT_NE(threads.find("  CPU%  "), std::string::npos) << threads;
  // A thread's SELF% is its share of the sampled CPU and its CPU% its CPU
  // time over the recording's duration: both from its SELF-TIME and the
  // header's figures (which may coincide when the threads' CPU adds up to
  // the duration, so each is checked against its own definition).
  auto millis = [](const std::string& text, const std::string& after) {
    const size_t at = text.find(after);
    if (at == std::string::npos) return -1.0;
    std::istringstream in(text.substr(at + after.size()));
    double v = 0;
    std::string unit;
    in >> v >> unit;
    return unit == "s" ? v * 1000 : unit == "us" ? v / 1000 : v;
  };
  const double duration = millis(threads, "duration:");
  const double sampled = millis(threads, "CPU sampled:");
  ASSERT_GT(duration, 0) << threads;
  ASSERT_GT(sampled, 0) << threads;
  int thread_rows = 0;
  for (const std::string& l : lines(threads)) {
    if (l.find(" ms  ") == std::string::npos || l.find(" (") == std::string::npos) continue;
    std::istringstream in(l);
    double self = 0, cpu = 0, self_ms = 0;
    std::string unit;
    in >> self;
    in.ignore(1);
    in >> cpu;
    in.ignore(1);
    in >> self_ms >> unit;
    if (unit != "ms") continue;
    ++thread_rows;
    EXPECT_NEAR(self, 100 * self_ms / sampled, 0.2) << l << "\n" << threads;
    EXPECT_NEAR(cpu, 100 * self_ms / duration, 0.2) << l << "\n" << threads;
  }
  EXPECT_EQ(thread_rows, 3) << threads;
}

TEST_F(NamesTest, JsonAndCsvRoundShareAlike) {
  std::string json = report({"--format", "json", "--top", "0"});
  std::string csv = report({"--format", "csv", "--top", "0"});
  // CSV: rank,name,...,self_pct (9th field), ..., total_pct (12th); names
  // here hold no commas but "(unsigned long, int)": read from the end.
  std::vector<std::string> csv_self;
  for (const std::string& l : lines(csv)) {
    if (l.rfind("rank,", 0) == 0) continue;
    std::vector<std::string> f;
    std::string cur;
    bool quoted = false;
    for (char c : l) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    ASSERT_GE(f.size(), 12u) << l;
    csv_self.push_back(f[f.size() - 4]);
  }
  std::vector<std::string> json_self;
  for (size_t at = json.find("\"self_pct\":"); at != std::string::npos;
       at = json.find("\"self_pct\":", at + 1)) {
    size_t from = at + 11;
    size_t to = json.find_first_of(",}", from);
    json_self.push_back(json.substr(from, to - from));
  }
  ASSERT_EQ(json_self.size(), csv_self.size());
  for (size_t i = 0; i < csv_self.size(); ++i) {
    EXPECT_DOUBLE_EQ(std::atof(json_self[i].c_str()), std::atof(csv_self[i].c_str()))
        << "row " << i + 1 << ": json " << json_self[i] << ", csv " << csv_self[i];
  }
}

TEST_F(NamesTest, NamesAreWholeOffATerminalAndCutInTheMiddleToAWidth) {
  const std::string run =
      "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda(int)#1}, int> > "
      ">::_M_run()";
  std::string whole = report({"--top", "0"});
  EXPECT_NE(whole.find(run), std::string::npos) << "cut although stdout is a pipe:\n" << whole;
  std::string cut = report({"--top", "0", "--width", "100"});
  for (const std::string& l : lines(cut)) {
    if (l.find("...") == std::string::npos || l.find("_M_run()") == std::string::npos) continue;
    EXPECT_LE(l.size(), 100u) << l;
    const size_t cut_at = l.find("...");
    EXPECT_LT(l.find("std::thread::"), cut_at) << "the start kept: " << l;
    EXPECT_GT(l.find("#1}, int> > >::_M_run()"), cut_at) << "the distinguishing end kept: " << l;
    return;
  }
  ADD_FAILURE() << "no _M_run() row cut in its middle at --width 100:\n" << cut;
}

TEST_F(NamesTest, ANegativeTopIsRefused) {
  Ran r = runProcess({kStrobe, "report", db(), "--top", "-1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "strobe: error: --top -1 is not a number of rows\n"
            "  hint: use --top N with N >= 1, or --top 0 for every row\n");
}

}  // namespace
}  // namespace strobe::test
