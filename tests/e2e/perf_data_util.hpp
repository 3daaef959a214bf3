// What the perf.data end-to-end tests share: a scratch folder with its own
// HOME (so perf's build-id cache, ~/.debug, is the test's), perf record
// and perf report run in it, and the self shares each tool reports.
// Test-only. Thread safety: none.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "completeness_check.hpp"
#include "run_process.hpp"

namespace strobe::test {

// Self shares (percent) by function name; C++ names without their
// parameters ("work_six", as perf prints them).
using Shares = std::map<std::string, double>;

// The share fixture, and the run both perf.data suites record.
inline const std::string kShares = kFixtures + "fixture_shares";
inline const std::vector<std::string> kSharesRun = {kShares, "100000", "250"};

class PerfDataTest : public ::testing::Test {
 protected:
  // Skips (with the reason) when perf is missing or refuses to record.
  void SetUp() override;
  void TearDown() override;

  // `perf ARGS...` with HOME set to the test's folder.
  Ran perf(const std::vector<std::string>& args) const;
  // `strobe ARGS...` with the same HOME.
  Ran strobe(const std::vector<std::string>& args) const;
  // perf record -q -B -e cpu-clock -F 999 MODE... -o path(NAME) -- COMMAND...
  Ran record(const std::string& name, const std::vector<std::string>& mode,
             const std::vector<std::string>& command) const;
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // perf report --no-children --sort comm,sym -g none of `data` (plus
  // `args`), each symbol's share of what the report covers (entries of one
  // name added up over commands, and scaled to 100% when `args` filter,
  // e.g. --comms).
  // With `event`: that event's table only (perf report prints one per event).
  Shares perfShares(const std::string& data, const std::vector<std::string>& args = {},
                    const std::string& event = {}) const;
  // strobe report FILE --format csv --no-inline --top 0 (plus `args`).
  Shares strobeShares(const std::string& file, const std::vector<std::string>& args = {}) const;
  // How complete `file`'s stacks are (strobe report --format folded).
  FoldedCompleteness completeness(const std::string& file,
                                  const std::vector<std::string>& args = {}) const;

  // Each name's shares agree within `points`; names strobe lacks fail.
  static void expectSharesAgree(const Shares& perf, const Shares& strobe,
                                const std::vector<std::string>& names, double points = 1.5);

  std::string dir_;
  std::string home_;
  std::string perf_;  // perf's path
};

// reached / total, in percent (0 for no samples).
double reachedPct(const FoldedCompleteness& c);
double missingCallerPct(const FoldedCompleteness& c);

}  // namespace strobe::test
