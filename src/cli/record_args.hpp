// The sampling options `record` and `top` share: their CLI11 registration,
// their checks (with the exact error lines and hints users see) and their
// translation into record::RecordOptions, plus -P NAME resolution.
// Owns: nothing beyond the RecordArgs it is given. Thread safety: main
// thread only (prints to stderr).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "record/session.hpp"

namespace strobe::cli {

struct RecordArgs {
  uint32_t frequency = 99;
  std::string call_graph = "fp";
  std::string output = "strobe.db";  // record only
  size_t mmap_pages = 128;
  std::vector<std::string> command;
  std::string pids;          // -p
  std::string process_name;  // -P
  bool all_cpus = false;     // -a (record only)
  std::string duration;      // -d
  std::string event = "cpu-clock";
  uint64_t count = 0;   // -c
  bool kernel = false;  // -k
  bool no_inherit = false;
  bool frequency_given = false;
  bool off_cpu = false;     // --off-cpu
  std::string off_cpu_min;  // --off-cpu-min DUR ("": the default)
};

// How a subcommand words its usage errors.
struct CommandUsage {
  std::string targets;  // "a command, -p PID, -P NAME, -a"
  std::string usage;    // "usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a"
  std::string dashes;   // "usage: strobe record [OPTIONS] -- CMD [ARGS]"
};

// Registers -F, -g, --mmap-pages, -p, -P, -d, -e, -c, -k, --no-inherit,
// --off-cpu and --off-cpu-min on `sub`.
void addSamplingOptions(CLI::App* sub, RecordArgs& a);

// Fills a.command from what followed "--" (has_dashes) or else from the
// arguments CLI11 left over. Returns 0, or the exit status after an error.
int takeCommand(RecordArgs& a, CLI::App* sub, bool has_dashes,
                const std::vector<std::string>& command, const CommandUsage& u);

// Checks `a` and fills `opt` (-P NAME resolved to its pid). Returns 0, or
// the exit status after printing the error.
int toRecordOptions(const RecordArgs& a, const CommandUsage& u, record::RecordOptions& opt);

}  // namespace strobe::cli
