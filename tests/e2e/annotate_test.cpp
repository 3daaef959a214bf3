// End to end: `strobe annotate` and `strobe report --by address` on
// tests/fixtures/annotate_loop.cpp (a hot loop inlined into hot()), checked
// against binutils (addr2line, readelf: which instructions are the loop)
// and against `perf annotate` on a perf recording of the same program.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "model/code.hpp"
#include "run_process.hpp"
#include "store/store.hpp"

namespace strobe::test {
namespace {

const std::string kFixture = kFixtures + "fixture_annotate";
const std::string kStripped = kFixtures + "fixture_annotate_stripped";

// The path of a program on PATH, "" when there is none.
std::string tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// Instruction address -> share (0 when the column is blank) from annotate's text.
std::map<uint64_t, double> annotateShares(const std::string& text) {
  static const std::regex kLine(R"(^ *([0-9.]+%)? [* ] [> ] *([0-9a-f]+)  \S.*$)");
  std::map<uint64_t, double> out;
  for (const std::string& l : lines(text)) {
    std::smatch m;
    if (!std::regex_match(l, m, kLine)) continue;
    out[std::stoull(m[2], nullptr, 16)] = m[1].matched ? std::stod(m[1]) : 0.0;
  }
  return out;
}

// The same from `perf annotate --stdio` (lines "  53.57 :   1273:   lea ...").
std::map<uint64_t, double> perfShares(const std::string& text) {
  static const std::regex kLine(R"(^ *([0-9.]+) +: +([0-9a-f]+): .*$)");
  std::map<uint64_t, double> out;
  for (const std::string& l : lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, kLine)) out[std::stoull(m[2], nullptr, 16)] = std::stod(m[1]);
  }
  return out;
}

// The `n` addresses with the largest shares.
std::set<uint64_t> top(const std::map<uint64_t, double>& shares, size_t n) {
  std::vector<std::pair<double, uint64_t>> v;
  for (const auto& [a, s] : shares) v.emplace_back(s, a);
  std::sort(v.rbegin(), v.rend());
  std::set<uint64_t> out;
  for (size_t k = 0; k < v.size() && k < n; ++k) out.insert(v[k].second);
  return out;
}

// By address: whether binutils' addr2line puts it in the loop of mix()
// inlined into hot(): an inline chain of two frames (addr2line names both by
// the ELF symbol, hot) whose innermost line is one of the loop's three.
std::map<uint64_t, bool> inLoop(const std::string& binary, const std::vector<uint64_t>& addrs) {
  const int first = lineOf(STROBE_SOURCE_DIR "/tests/fixtures/annotate_loop.cpp",
                           "for (int i = 0; i < n; ++i) {");
  EXPECT_GT(first, 0);
  std::vector<std::string> argv = {tool("addr2line"), "-a", "-i", "-e", binary};
  for (uint64_t a : addrs) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
    argv.emplace_back(buf);
  }
  Ran r = runProcess(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<uint64_t, bool> out;
  std::vector<std::string> ls = lines(r.out);
  for (size_t k = 0; k < ls.size(); ++k) {
    if (ls[k].rfind("0x", 0) != 0) continue;
    size_t frames = 0;
    int line = 0;
    for (size_t j = k + 1; j < ls.size() && ls[j].rfind("0x", 0) != 0; ++j, ++frames) {
      if (frames == 0) line = std::atoi(ls[j].c_str() + ls[j].rfind(':') + 1);
    }
    out[std::stoull(ls[k], nullptr, 16)] = frames == 2 && line >= first && line <= first + 2;
  }
  return out;
}

class AnnotateE2eTest : public ::testing::Test {
 protected:
  // One recording of the fixture (1.5 s of CPU) for the tests that only
  // read it; the others record what they need.
  static void SetUpTestSuite() {
    SharedRun shared = runOnce(
        "annotate", {kStrobe, "record", "-F", "999", "-o", "{dir}/rec.db", "--", kFixture, "1.5"});
    shared_dir_ = shared.dir;
    shared_ = shared.ran;
  }

  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }
  std::string db() const { return dir_ + "/rec.db"; }

  // The shared recording, copied to db() (the test may damage it).
  void useSharedRecording() {
    ASSERT_EQ(shared_.status, 0) << shared_.err;
    std::filesystem::copy_file(shared_dir_ + "/rec.db", db());
  }
  Ran record(const std::string& program, const std::string& seconds) {
    return runProcess({kStrobe, "record", "-F", "999", "-o", db(), "--", program, seconds});
  }
  Ran strobe(std::vector<std::string> args) {
    args.insert(args.begin(), kStrobe);
    return runProcess(args);
  }
  void sql(const std::string& statement) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db().c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &err);
    std::string message = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(h);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  static std::string shared_dir_;
  static Ran shared_;
  std::string dir_;
};

std::string AnnotateE2eTest::shared_dir_;
Ran AnnotateE2eTest::shared_;

// Acceptance 1: the loop inlined into hot() holds >= 90% of hot()'s
// samples, and its hottest instructions are perf annotate's.
TEST_F(AnnotateE2eTest, InlinedLoopHoldsTheFunctionAndPerfAgrees) {
  useSharedRecording();
  Ran a = strobe({"annotate", db(), "hot", "--no-source"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.err, "") << "no warnings";
  std::map<uint64_t, double> shares = annotateShares(a.out);
  ASSERT_GE(shares.size(), 10u) << a.out;
  std::vector<uint64_t> addrs;
  double sum = 0;
  for (const auto& [addr, s] : shares) {
    addrs.push_back(addr);
    sum += s;
  }
  EXPECT_NEAR(sum, 100.0, 0.5) << a.out;
  std::map<uint64_t, bool> loop = inLoop(kFixture, addrs);
  double loop_share = 0;
  size_t loop_instructions = 0;
  for (const auto& [addr, s] : shares) {
    if (!loop[addr]) continue;
    loop_share += s;
    ++loop_instructions;
  }
  EXPECT_GE(loop_instructions, 5u) << a.out;
  EXPECT_GE(loop_share, 90.0) << a.out;

  // perf, on its own recording of the same program.
  const std::string perf = tool("perf");
  ASSERT_FALSE(perf.empty()) << "perf is a test dependency: run scripts/deps.sh test";
  const std::string data = dir_ + "/perf.data";
  Ran pr = runProcess({perf, "record", "-N", "-q", "-e", "cpu-clock", "-F", "999", "-o", data, "--",
                       kFixture, "1.5"});
  if (pr.status != 0 && pr.err.find("perf_event_paranoid") != std::string::npos) {
    GTEST_SKIP() << "the kernel refuses perf record here: " << pr.err;
  }
  ASSERT_EQ(pr.status, 0) << pr.err;
  Ran pa = runProcess({perf, "annotate", "-i", data, "--stdio", "--no-source", "-s", "hot"});
  ASSERT_EQ(pa.status, 0) << pa.err;
  std::map<uint64_t, double> theirs = perfShares(pa.out);
  ASSERT_GE(theirs.size(), 10u) << pa.out;
  EXPECT_EQ(top(shares, 2), top(theirs, 2)) << "strobe:\n" << a.out << "perf:\n" << pa.out;
  for (uint64_t addr : top(theirs, 2)) {
    EXPECT_NEAR(shares[addr], theirs[addr], 10.0) << std::hex << addr;
  }
}

// With source lines: the loop's lines are interleaved, with their text.
TEST_F(AnnotateE2eTest, SourceLinesAreInterleaved) {
  useSharedRecording();
  Ran a = strobe({"annotate", db(), "hot"});
  ASSERT_EQ(a.status, 0) << a.err;
  const int loop_line = lineOf(STROBE_SOURCE_DIR "/tests/fixtures/annotate_loop.cpp",
                               "x = x / d + (x ^ 0x9e3779b97f4a7c15ULL);");
  ASSERT_GT(loop_line, 0);
  EXPECT_NE(a.out.find("annotate_loop.cpp:" + std::to_string(loop_line) +
                       "      x = x / d + (x ^ 0x9e3779b97f4a7c15ULL);"),
            std::string::npos)
      << a.out;
  EXPECT_TRUE(
      std::regex_search(a.out, std::regex(R"(\nsource: /\S*/tests/fixtures/annotate_loop\.cpp\n)")))
      << a.out;
  EXPECT_EQ(a.out.find('\x1b'), std::string::npos) << "a pipe gets no colour";
  // Jump targets: the loop's back edge names its target in hot().
  EXPECT_TRUE(std::regex_search(a.out, std::regex(R"(jne +0x[0-9a-f]+ <hot\+0x[0-9a-f]+>)")))
      << a.out;
}

// Acceptance 2: no .symtab, no DWARF; --by address --bucket 16 ranks the
// loop's bucket first, named module+offset.
TEST_F(AnnotateE2eTest, StrippedProgramByAddressBucket) {
  Ran sections = runProcess({tool("readelf"), "-SW", kStripped});
  ASSERT_EQ(sections.status, 0) << sections.err;
  ASSERT_EQ(sections.out.find(".symtab"), std::string::npos) << "the fixture is not stripped";
  ASSERT_EQ(sections.out.find(".debug_info"), std::string::npos);
  Ran r = record(kStripped, "1.0");
  ASSERT_EQ(r.status, 0) << r.err;
  Ran rep = strobe(
      {"report", db(), "--by", "address", "--bucket", "16", "--format", "csv", "--top", "3"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::vector<std::string> rows = lines(rep.out);
  ASSERT_GE(rows.size(), 2u) << rep.out;
  EXPECT_EQ(rows[0].substr(rows[0].rfind(',') + 1), "address");
  // rank,name,...,address: the name is the address (no symbol to say more).
  static const std::regex kRow(
      R"(^1,(fixture_annotate_stripped\+0x([0-9a-f]+)),,,0,fixture_annotate_stripped,\d+,\d+,([0-9.]+),.*,(fixture_annotate_stripped\+0x[0-9a-f]+)$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(rows[1], m, kRow)) << rep.out;
  EXPECT_EQ(m[1].str(), m[4].str());
  EXPECT_GE(std::stod(m[3]), 20.0) << rep.out;
  const uint64_t offset = std::stoull(m[2], nullptr, 16);
  EXPECT_EQ(offset % 16, 0u);

  // The bucket's file offset as an ELF address (readelf's PT_LOAD), then
  // addr2line on the unstripped twin (the same code at the same addresses).
  Ran segs = runProcess({tool("readelf"), "-lW", kStripped});
  static const std::regex kLoad(
      R"(^ *LOAD +0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+) .*$)");
  uint64_t vaddr = 0;
  bool found = false;
  for (const std::string& l : lines(segs.out)) {
    std::smatch s;
    if (!std::regex_match(l, s, kLoad)) continue;
    uint64_t off = std::stoull(s[1], nullptr, 16);
    uint64_t va = std::stoull(s[2], nullptr, 16);
    uint64_t filesz = std::stoull(s[3], nullptr, 16);
    if (offset >= off && offset < off + filesz) {
      vaddr = offset - off + va;
      found = true;
    }
  }
  ASSERT_TRUE(found) << segs.out;
  std::vector<uint64_t> bucket;
  for (uint64_t a = vaddr; a < vaddr + 16; ++a) bucket.push_back(a);
  std::map<uint64_t, bool> loop = inLoop(kFixture, bucket);
  EXPECT_TRUE(std::any_of(loop.begin(), loop.end(), [](const auto& x) { return x.second; }))
      << "the first bucket is not the loop's: " << rows[1];
}

// Acceptance 3: annotate reads the recording only.
TEST_F(AnnotateE2eTest, AnnotateAfterTheBinaryIsDeleted) {
  const std::string app = dir_ + "/app";
  std::filesystem::copy_file(kFixture, app);
  ::chmod(app.c_str(), 0755);
  Ran r = record(app, "0.5");
  ASSERT_EQ(r.status, 0) << r.err;
  Ran before = strobe({"annotate", db(), "hot"});
  ASSERT_EQ(before.status, 0) << before.err;
  std::filesystem::remove(app);
  Ran after = strobe({"annotate", db(), "hot"});
  ASSERT_EQ(after.status, 0) << after.err;
  EXPECT_EQ(after.out, before.out);
  EXPECT_NE(after.out.find("hot in app (x86_64)"), std::string::npos) << after.out;
  EXPECT_GE(annotateShares(after.out).size(), 10u) << after.out;
}

// Acceptance 4 (end to end; output/annotate_test.cpp has the unit tests):
// damaged code bytes give a warning, never a crash.
TEST_F(AnnotateE2eTest, DamagedCodeBytesWarn) {
  useSharedRecording();
  const std::string hot = "(SELECT id FROM functions WHERE name = 'hot')";
  sql("UPDATE code SET bytes = substr(bytes, 1, 12) WHERE function_id = " + hot);
  Ran a = strobe({"annotate", db(), "hot"});
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.err.find("strobe: warning: hot (fixture_annotate 0x"), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("the kept code is truncated: 12 of"), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("the kept code is corrupt: its checksum differs"), std::string::npos)
      << a.err;
  EXPECT_NE(a.out.find("hot in fixture_annotate"), std::string::npos) << a.out;

  sql("UPDATE code SET size = 'x' WHERE function_id = " + hot);
  a = strobe({"annotate", db(), "hot"});
  EXPECT_EQ(a.status, 1) << a.err;
  EXPECT_TRUE(std::regex_search(
      a.err, std::regex(R"(strobe: warning: .*rec\.db: the kept code is damaged: code row \d+: )"
                        R"(size is 'x', not an integer\n)"
                        R"(  hint: the recording's kept code is damaged; annotate needs it: )"
                        R"(record again\n)")))
      << a.err;
  EXPECT_NE(a.err.find("strobe: error: the recording holds no code of 'hot' to disassemble"),
            std::string::npos)
      << a.err;
  // The rest of the recording still reports.
  Ran rep = strobe({"report", db(), "--by", "address"});
  EXPECT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.err.find("rows show functions without offsets"), std::string::npos) << rep.err;
}

TEST_F(AnnotateE2eTest, InlinedFunctionsAnnotateTheirCallers) {
  useSharedRecording();
  Ran a = strobe({"annotate", db(), "mix", "--no-source"});
  ASSERT_EQ(a.status, 0) << a.err;
  // Named as the demangler would name it: inlined names are qualified.
  EXPECT_EQ(a.err,
            "strobe: (anonymous namespace)::mix has no code of its own: it was inlined into hot\n");
  EXPECT_EQ(a.out.rfind("hot in fixture_annotate", 0), 0u) << a.out;
}

// Kernel frames (-k): rows named function+offset from /proc/kallsyms.
TEST_F(AnnotateE2eTest, KernelAddresses) {
  std::vector<std::string> argv = {
      kStrobe, "record", "-k", "-F", "999", "-o", db(), "--", kFixtures + "fixture_syscalls",
      "1.0"};
  Ran r = runProcess(argv);
  if (r.status == 3) GTEST_SKIP() << "the kernel forbids kernel sampling here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  if (r.err.find("kernel symbol addresses are hidden") != std::string::npos) {
    GTEST_SKIP() << "kernel symbols are hidden here: " << r.err;
  }
  Ran rep = strobe({"report", db(), "--by", "address", "--format", "csv", "--top", "0"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  static const std::regex kKernelRow(
      R"(^\d+,([A-Za-z_][A-Za-z0-9_.]*)\+0x([0-9a-f]+),.*,\[kernel\.kallsyms\]\+0x(ffff[0-9a-f]+)$)");
  int kernel_rows = 0;
  for (const std::string& l : lines(rep.out)) {
    std::smatch m;
    if (std::regex_match(l, m, kKernelRow)) ++kernel_rows;
  }
  EXPECT_GE(kernel_rows, 3) << rep.out;
}

TEST_F(AnnotateE2eTest, CommandLineErrors) {
  // A recording with two functions that share a prefix.
  model::Profile p;
  p.meta().event = "cpu-clock";
  model::ModuleId m = p.internModule("/opt/app", "");
  for (const char* name : {"alpha_one", "alpha_two"}) {
    model::FunctionId f = p.internFunction(name, name, "", 0);
    model::LocationId l = p.internLocation(m, f * 0x100 + 0x1000, f * 0x100 + 0x1000);
    p.mutableLocations()[l].lines = {{f, 0}};
    p.addSample({1, 1, 0, p.internStack(model::kNone, l), 1000});
  }
  ASSERT_TRUE(store::writeProfile(p, db()));
  Ran a = strobe({"annotate", db(), "alpha"});
  EXPECT_EQ(a.status, 5) << a.err;
  EXPECT_EQ(a.err,
            "strobe: error: 2 functions match 'alpha':\n"
            "  alpha_one  (app, 50.0% self)\n"
            "  alpha_two  (app, 50.0% self)\n"
            "  hint: name one exactly, in quotes: strobe annotate " +
                db() + " 'alpha_one'\n");
  a = strobe({"annotate", db(), "beta"});
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err, "strobe: error: no sampled function matches 'beta' in " + db() +
                       "\n  hint: see the sampled functions: strobe report " + db() + " --top 0\n");
  a = strobe({"annotate", db(), "alpha_one"});
  EXPECT_EQ(a.status, 1);
  EXPECT_NE(a.err.find("strobe: warning: the recording kept no code of alpha_one"),
            std::string::npos)
      << a.err;
  a = strobe({"annotate", db(), "alpha_one", "--threshold", "101"});
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err,
            "strobe: error: --threshold 101 is not a percentage\n"
            "  hint: give a share from 0 to 100, e.g. --threshold 1\n");
  a = strobe({"annotate"});
  EXPECT_EQ(a.status, 2) << a.err;
  EXPECT_EQ(a.err,
            "strobe: error: name the function to annotate\n"
            "  hint: strobe annotate [FILE] FUNCTION; strobe report FILE lists the sampled "
            "functions\n");
  a = strobe({"annotate", db(), "alpha_one", "extra"});
  EXPECT_EQ(a.status, 2) << a.err;
  // Options may follow the function; one argument is the function.
  a = strobe({"annotate", "alpha_one", "--no-source"});
  EXPECT_EQ(a.status, 1) << a.err;  // strobe.db does not exist here
  EXPECT_NE(a.err.find("no recording at strobe.db"), std::string::npos) << a.err;

  a = strobe({"report", db(), "--bucket", "16"});
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err,
            "strobe: error: --bucket needs --by address\n"
            "  hint: add --by address, or drop --bucket\n");
  a = strobe({"report", db(), "--by", "address", "--bucket", "12"});
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err,
            "strobe: error: --bucket 12 is not a power of two from 1 to 4096\n"
            "  hint: use e.g. --bucket 16 (powers of two align alike in the file and in "
            "memory)\n");

  // A recording from before strobe kept code.
  sql("DROP TABLE code_lines; DROP TABLE code; PRAGMA user_version = 1;"
      " UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  a = strobe({"annotate", db(), "alpha_one"});
  EXPECT_EQ(a.status, 1);
  EXPECT_EQ(a.err, "strobe: error: " + db() +
                       " was recorded before strobe kept the code of sampled functions\n"
                       "  hint: record it again with this strobe to annotate it\n");
  a = strobe({"report", db(), "--by", "address"});
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.err, "");
}

}  // namespace
}  // namespace strobe::test
