// End to end: how `strobe record` fails. Where the recording cannot go
// (checked before the command starts), a disk that fills up while recording,
// a strobe killed with SIGKILL, bad options, -P NAME and strobe's own
// ancestors, hostile names on the terminal, and the exact error lines.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "model/aggregate.hpp"
#include "recording_util.hpp"
#include "run_process.hpp"

namespace strobe::test {
namespace {

namespace fs = std::filesystem;
constexpr int kExitOutput = 6;

class RecordFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { removeTree(dir_); }

  // strobe record -o OUT OPTS -- CMD
  Ran record(const std::string& out, std::vector<std::string> cmd,
             std::vector<std::string> opts = {}) {
    std::vector<std::string> argv = {kStrobe, "record", "-o", out};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return runProcess(argv);
  }
  // A command that leaves a marker file when it runs at all.
  std::vector<std::string> marking() const { return {"/bin/sh", "-c", "touch " + marker()}; }
  std::string marker() const { return dir_ + "/ran"; }

  // Runs `script` in a private mount namespace (so it may mount a tmpfs);
  // status 77 means the namespace or the mount was refused.
  Ran inMountNamespace(const std::string& script) {
    return runProcess({"/usr/bin/unshare", "-m", "/bin/sh", "-c", script});
  }

  std::string dir_;
};

// User+system CPU seconds of process `pid` so far (/proc/PID/stat), 0 when gone.
double processCpuSeconds(pid_t pid) {
  std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0.0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string f;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(f);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// SELF% of the row `fn` in a text report's table, or -1.
double reportShare(const std::string& report, const std::string& fn) {
  std::istringstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(" " + fn + " ") == std::string::npos) continue;
    std::istringstream cols(line);
    std::string self;
    cols >> self;
    if (!self.empty() && self.back() == '%') return std::stod(self.substr(0, self.size() - 1));
  }
  return -1;
}

// -o never replaces what is not a regular file: a device, a FIFO or a
// directory is refused before the command starts, and left as it was.
TEST_F(RecordFaultsTest, OutputThatIsNotARegularFileIsRefusedBeforeTheCommandRuns) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string proj = dir_ + "/proj";
  fs::create_directory(proj);
  std::ofstream(proj + "/main.c") << "int main() { return 0; }\n";
  std::vector<std::pair<std::string, std::string>> cases = {{fifo, "a FIFO"},
                                                            {proj, "a directory"}};
  const std::string dev = dir_ + "/mynull";
  if (mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    cases.emplace_back(dev, "a character device");
  } else {
    std::cout << "[ note ] mknod refused (" << strerror(errno)
              << "): the character device case is not run\n";
  }
  for (const auto& [path, kind] : cases) {
    SCOPED_TRACE(path);
    Ran r = record(path, marking());
    EXPECT_EQ(r.status, kExitOutput) << r.err;
    const std::string hint = kind == "a directory" ? "name a file: -o " + path + "/strobe.db"
                                                   : "choose another file name with -o FILE";
    EXPECT_EQ(r.err, "strobe: error: cannot write " + path + ": it is " + kind +
                         ", not a recording\n  hint: " + hint + "\n");
    EXPECT_FALSE(fs::exists(path + ".old"));
    EXPECT_FALSE(fs::exists(marker())) << "the command ran";
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::exists(proj + "/main.c"));
  if (fs::exists(dev)) {
    EXPECT_TRUE(fs::is_character_file(dev));
  }
}

// A missing directory is found before the command starts.
TEST_F(RecordFaultsTest, MissingDirectoryIsFoundBeforeTheCommandRuns) {
  const std::string out = dir_ + "/no/such/dir/rec.db";
  Ran r = record(out, marking());
  EXPECT_EQ(r.status, kExitOutput);
  EXPECT_EQ(r.err, "strobe: error: cannot write " + out + ": directory " + dir_ +
                       "/no/such/dir does not exist\n  hint: create it first (mkdir -p " + dir_ +
                       "/no/such/dir) or choose another file with -o\n");
  EXPECT_FALSE(fs::exists(marker())) << "the command ran";
}

// A read-only file system too (root ignores directory permissions, so the
// directory is a read-only tmpfs in a private mount namespace).
TEST_F(RecordFaultsTest, ReadOnlyDirectoryIsFoundBeforeTheCommandRuns) {
  const std::string ro = dir_ + "/ro";
  fs::create_directory(ro);
  const std::string out = ro + "/rec.db";
  Ran r =
      inMountNamespace("mount -t tmpfs -o ro,size=1m tmpfs " + ro + " || exit 77; exec " + kStrobe +
                       " record -o " + out + " -- /bin/sh -c 'touch " + marker() + "'");
  if (r.status == 77) GTEST_SKIP() << "cannot mount a tmpfs in a mount namespace here: " << r.err;
  EXPECT_EQ(r.status, kExitOutput) << r.err;
  EXPECT_EQ(r.err, "strobe: error: cannot write " + out +
                       ": read-only file system\n  hint: write the recording to a writable file "
                       "system with -o FILE\n");
  EXPECT_FALSE(fs::exists(marker())) << "the command ran";
}

// A disk that fills up while recording: the samples are kept (here in
// $TMPDIR), the error says where, and the status is strobe's (6), not the
// command's (3).
TEST_F(RecordFaultsTest, FullDiskKeepsTheRecordingInTmpdirAndSaysWhere) {
  const std::string small = dir_ + "/small";
  const std::string tmp = dir_ + "/tmp";
  fs::create_directory(small);
  fs::create_directory(tmp);
  const std::string out = small + "/rec.db";
  const std::string cmd = kFixtures + "fixture_shares 100000 150; dd if=/dev/zero of=" + small +
                          "/fill bs=64k 2>/dev/null; exit 3";
  Ran r = inMountNamespace("mount -t tmpfs -o size=1m tmpfs " + small +
                           " || exit 77; TMPDIR=" + tmp + " exec " + kStrobe +
                           " record -F 999 -o " + out + " -- /bin/sh -c '" + cmd + "'");
  if (r.status == 77) GTEST_SKIP() << "cannot mount a tmpfs in a mount namespace here: " << r.err;
  EXPECT_EQ(r.status, kExitOutput) << r.err;
  std::vector<fs::path> kept;
  for (const auto& e : fs::directory_iterator(tmp)) kept.push_back(e.path());
  ASSERT_EQ(kept.size(), 1u) << r.err;
  const std::string fallback = kept.front().string();
  EXPECT_EQ(fallback.rfind(tmp + "/strobe-rec-", 0), 0u) << fallback;
  EXPECT_NE(r.err.find("strobe: error: cannot write " + out +
                       ": the disk is full\n  hint: the recording was saved as " + fallback +
                       " instead; free some space, or write the recording elsewhere with -o "
                       "FILE\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("strobe: wrote " + fallback), std::string::npos) << r.err;
  model::Profile p = loadRecording(fallback);
  EXPECT_EQ(p.meta().exit_status, 3);
  EXPECT_EQ(p.meta().incomplete, 0u);
  EXPECT_NEAR(selfShare(p, "work_six()"), 60.0, 4.0);
  EXPECT_NEAR(selfShare(p, "work_three()"), 30.0, 4.0);
}

// SIGKILL to strobe: the recording streamed so far stays, `strobe report`
// reads it with a warning and names its frames then; at most the last ~1 s
// of samples is missing. The command gets SIGTERM when strobe dies.
TEST_F(RecordFaultsTest, KilledRecorderLeavesARecordingThatReportReads) {
  const std::string db = dir_ + "/rec.db";
  const auto t0 = std::chrono::steady_clock::now();
  int pid = startProcess({kStrobe, "record", "-F", "999", "-o", db, "--",
                          kFixtures + "fixture_shares", "200000", "100000"},
                         dir_);
  ASSERT_GT(pid, 0);
  // The command's own CPU time (the kernel's accounting) every 100 ms until
  // the kill: what the recording must hold, independently of strobe.
  std::vector<double> cpu_s;  // at 0.1 s, 0.2 s, ...
  pid_t command = 0;
  for (int i = 0; i < 25; ++i) {
    sleepMs(100);
    if (command == 0) {
      std::istringstream kids(
          readFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
      kids >> command;
    }
    cpu_s.push_back(command > 0 ? processCpuSeconds(command) : 0.0);
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  const double killed_after_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_GT(command, 0) << "no command under strobe";
  Ran r = waitProcess(pid, dir_);
  EXPECT_EQ(r.status, 128 + SIGKILL);

  auto loaded = store::readProfile(db);
  ASSERT_TRUE(loaded.ok()) << loaded.error().describe();
  const model::Profile& p = *loaded;
  EXPECT_EQ(p.meta().incomplete, 1u);
  EXPECT_EQ(p.meta().pid, command);
  // The command: SIGTERM when strobe died (PR_SET_PDEATHSIG), so gone soon.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = kill(command, 0) != 0 ||
           readFile("/proc/" + std::to_string(command) + "/stat").find(") Z") != std::string::npos;
    if (!gone) sleepMs(100);
  }
  EXPECT_TRUE(gone) << "the command outlived strobe";

  // Samples up to at most ~1 s before the kill (streamed every 500 ms).
  uint64_t last_ns = 0;
  for (const model::Sample& s : p.samples()) last_ns = std::max(last_ns, s.time_ns);
  EXPECT_GT(static_cast<double>(last_ns) / 1e9, killed_after_s - 1.0)
      << "killed after " << killed_after_s << " s";
  // The CPU sampled is what the command used until at most 1 s before the
  // kill (within 5% and the kernel's 10 ms accounting), and no more than
  // it used in all.
  const double sampled_s = static_cast<double>(model::totals(p).weight) / 1e9;
  const double cpu_then = cpu_s[cpu_s.size() - 11];  // 1 s before the last reading
  EXPECT_GE(sampled_s, 0.95 * cpu_then - 0.02) << "CPU 1 s before the kill: " << cpu_then;
  EXPECT_LE(sampled_s, 1.05 * cpu_s.back() + 0.02) << "CPU at the kill: " << cpu_s.back();

  Ran rep = runProcess({kStrobe, "report", db});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_EQ(rep.err.rfind("strobe: warning: " + db +
                              " is incomplete: strobe record did not finish it (killed?); it "
                              "holds " +
                              std::to_string(p.samples().size()) + " samples of the first ",
                          0),
            0u)
      << rep.err;
  EXPECT_NE(rep.err.find("  hint: frames are named from the programs on this machine now, not "
                         "as they were recorded\n"),
            std::string::npos)
      << rep.err;
  EXPECT_NEAR(reportShare(rep.out, "work_six()"), 60.0, 4.0) << rep.out;
  EXPECT_NEAR(reportShare(rep.out, "work_three()"), 30.0, 4.0) << rep.out;

  // The next record moves it (with its SQLite side files) aside.
  Ran again = record(db, {"/bin/true"});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_TRUE(loadRecording(db + ".old").meta().incomplete == 1u);
  EXPECT_EQ(loadRecording(db).meta().incomplete, 0u);
  EXPECT_FALSE(fs::exists(db + "-wal"));
}

// Unknown options before "--" (or before the command) are usage errors,
// for record and top alike; the command never runs.
TEST_F(RecordFaultsTest, UnknownOptionsAreUsageErrors) {
  const std::string db = dir_ + "/rec.db";
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::string touch = "touch " + marker();
  const std::vector<Case> cases = {
      {{"record", "-o", db, "--kernal", "--", "/bin/sh", "-c", touch},
       "strobe: error: unknown option '--kernal'\n  hint: did you mean --kernel? see 'strobe "
       "record --help'\n"},
      {{"record", "-o", db, "-Z", "--", "/bin/sh", "-c", touch},
       "strobe: error: unknown option '-Z'\n  hint: see 'strobe record --help'\n"},
      {{"record", "-o", db, "--no-inherti", "/bin/sh", "-c", touch},
       "strobe: error: unknown option '--no-inherti'\n  hint: did you mean --no-inherit? see "
       "'strobe record --help'\n"},
      {{"top", "--batch", "-n", "1", "--kernal", "--", "/bin/sh", "-c", touch},
       "strobe: error: unknown option '--kernal'\n  hint: did you mean --kernel? see 'strobe "
       "top --help'\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kStrobe};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Ran r = runProcess(argv);
    EXPECT_EQ(r.status, 2) << c.args[3];
    EXPECT_EQ(r.err, c.err);
  }
  EXPECT_FALSE(fs::exists(marker())) << "the command ran";
}

// -P NAME never matches strobe's own ancestors: `timeout 5 strobe record
// -P NAME` once recorded `timeout`, whose command line holds NAME.
TEST_F(RecordFaultsTest, ProcessNameNeverMatchesStrobesAncestors) {
  Ran r = runProcess({"/usr/bin/timeout", "5", kStrobe, "record", "-o", dir_ + "/rec.db", "-P",
                      "no_such_proc_strobe"});
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err,
            "strobe: error: no process named 'no_such_proc_strobe'\n"
            "  hint: check the name with ps, or give the pid with -p PID\n");
  EXPECT_FALSE(fs::exists(dir_ + "/rec.db"));
}

// Each of these is one line saying what is wrong, a hint, and the
// documented status.
TEST_F(RecordFaultsTest, ErrorsSayWhatIsWrongWithAHintAndTheirStatus) {
  const std::string db = dir_ + "/rec.db";
  struct Case {
    std::vector<std::string> args;
    int status;
    std::string err;
  };
  const std::string rate_hint = "  hint: give a rate from 1 to 10000 Hz\n";
  const std::string count_hint =
      "  hint: give a count from 1 to 9223372036854775807 (one sample every N events)\n";
  std::vector<Case> cases = {
      {{"record", "-o", db, "--mmap-pages", "1048576", "--", "/bin/true"},
       2,
       "strobe: error: --mmap-pages 1048576 is too large: 4096 MiB of ring per CPU\n"
       "  hint: use at most 65536 (256 MiB per CPU); 128 to 1024 is usual\n"},
      {{"record", "-o", db, "-c", "-1", "--", "/bin/true"},
       2,
       "strobe: error: -c -1 is out of range\n" + count_hint},
      {{"record", "-o", db, "-c", "0", "--", "/bin/true"},
       2,
       "strobe: error: -c 0 is out of range\n" + count_hint},
      {{"record", "-o", db, "-F", "-5", "--", "/bin/true"},
       2,
       "strobe: error: -F -5 is out of range\n" + rate_hint},
      {{"record", "-o", db, "-F", "abc", "--", "/bin/true"},
       2,
       "strobe: error: -F abc is not a whole number\n" + rate_hint},
      {{"bogus"},
       2,
       "strobe: error: unknown command 'bogus'\n"
       "  hint: use strobe record, report, diff, top, symbolize, query, list, annotate, import or "
       "agent (strobe --help)\n"},
  };
  // A script whose interpreter does not exist is not "command not found".
  const std::string script = dir_ + "/script.sh";
  std::ofstream(script) << "#!/no/such/interpreter\necho hi\n";
  fs::permissions(script, fs::perms::owner_all);
  cases.push_back({{"record", "-o", db, "--", script},
                   126,
                   "strobe: error: cannot execute '" + script +
                       "': its interpreter /no/such/interpreter does not exist\n"
                       "  hint: install /no/such/interpreter, or fix the #! line of " +
                       script + "\n"});
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kStrobe};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Ran r = runProcess(argv);
    EXPECT_EQ(r.status, c.status) << c.err;
    EXPECT_EQ(r.err, c.err);
  }
  EXPECT_FALSE(fs::exists(db)) << "no recording after a failed start";
}

// A strobe copied without its agent HTTP module: the agent stops at start,
// naming where it looked, with a hint and status 1; other commands run.
TEST_F(RecordFaultsTest, AgentWithoutItsHttpModuleSaysWhereItLooked) {
  const std::string copy = dir_ + "/strobe";
  fs::copy_file(kStrobe, copy);
  fs::permissions(copy, fs::perms::owner_all);
  Ran agent = runProcess({copy, "agent", "--http", "127.0.0.1:0", "-p", "1"});
  EXPECT_EQ(agent.status, 1);
  EXPECT_EQ(agent.err,
            "strobe: error: strobe agent cannot load its HTTP module: tried " + dir_ +
                "/strobe-agent-http.so (absent), " + dir_ +
                "/../lib/strobe/strobe-agent-http.so (absent)\n"
                "  hint: reinstall strobe: its package puts strobe-agent-http.so in ../lib/strobe "
                "from the strobe executable\n");
  EXPECT_EQ(runProcess({copy, "--version"}).status, 0);
}

// query on a recording whose schema is damaged: a corrupt file (status 1),
// not a usage error (2).
TEST_F(RecordFaultsTest, QueryOnACorruptSchemaIsNotAUsageError) {
  const std::string db = dir_ + "/rec.db";
  ASSERT_EQ(record(db, {"/bin/true"}).status, 0);
  Ran broke = runProcess({"/usr/bin/python3", "-c",
                          "import sqlite3; c = sqlite3.connect('" + db +
                              "'); c.execute('PRAGMA writable_schema=ON'); "
                              "c.execute(\"UPDATE sqlite_master SET sql='CREATE TABLE samples(' "
                              "WHERE name='samples'\"); c.commit()"});
  ASSERT_EQ(broke.status, 0) << broke.err;
  Ran r = runProcess({kStrobe, "query", db, "SELECT count(*) FROM threads"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err.rfind("strobe: error: " + db + " is corrupt: malformed database schema", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("\n  hint: the recording is damaged (truncated or overwritten?); record "
                       "it again\n"),
            std::string::npos)
      << r.err;
}

// Names are bytes chosen by the profiled program: control characters in a
// command argument or a thread name reach no terminal raw (record's summary,
// report, top), and query --json turns invalid UTF-8 into U+FFFD.
TEST_F(RecordFaultsTest, ControlCharactersInNamesAreNeutralized) {
  const std::string db = dir_ + "/rec.db";
  const std::string evil_arg = "x\x1b]0;pwned\x07y\nforged";
  // The shell names its thread "ev\x1b[2Jil" (then a 0xFF byte) and burns.
  const std::string script =
      "printf 'ev\\033[2Jil\\377' > /proc/$$/comm; i=0; while [ $i -lt 400000 ]; do "
      "i=$((i+1)); done";
  Ran r = record(db, {"/bin/sh", "-c", script, evil_arg}, {"-F", "999"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto clean = [](const std::string& text) {
    for (char c : text) {
      if (c == '\x1b' || c == '\x07' || c == '\xff') return false;
    }
    return true;
  };
  EXPECT_TRUE(clean(r.err)) << r.err;
  EXPECT_NE(r.err.find("x\\x1b]0;pwned\\x07y\\x0aforged"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\nforged"), std::string::npos) << r.err;

  Ran rep = runProcess({kStrobe, "report", db, "--by", "thread"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_TRUE(clean(rep.out)) << rep.out;
  EXPECT_NE(rep.out.find("ev\\x1b[2Jil\\xff"), std::string::npos) << rep.out;

  Ran top = runProcess({kStrobe, "top", "--batch", "-n", "1", "--by", "thread", "--", "/bin/sh",
                        "-c", script, evil_arg});
  // -n 1 ends the session as -d does: the command gets SIGTERM (143).
  EXPECT_TRUE(top.status == 0 || top.status == 128 + SIGTERM) << top.status << top.err;
  EXPECT_TRUE(clean(top.out)) << top.out;
  EXPECT_NE(top.out.find("ev\\x1b[2Jil\\xff"), std::string::npos) << top.out;

  Ran q = runProcess({kStrobe, "query", db, "SELECT name FROM threads WHERE name LIKE 'ev%'"});
  EXPECT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(q.out, "name\nev\\x1b[2Jil\\xff\n");
  Ran j = runProcess(
      {kStrobe, "query", "--json", db, "SELECT name FROM threads WHERE name LIKE 'ev%'"});
  EXPECT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(j.out, "[{\"name\":\"ev\\u001B[2Jil\xEF\xBF\xBD\"}]\n");
}

}  // namespace
}  // namespace strobe::test
