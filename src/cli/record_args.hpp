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

// Numbers are kept as typed and checked by toRecordOptions, so that every
// bad value gets strobe's own message and hint.
struct RecordArgs {
  std::string frequency = "99";  // -F
  // auto: complete stacks through Debian's libraries (built without frame
  // pointers) at no more cost to the target than fp (docs/BENCHMARKS.md).
  std::string call_graph = "auto";
  std::string output = "strobe.db";  // record only
  std::string mmap_pages = "128";
  std::vector<std::string> command;
  std::string pids;          // -p
  std::string process_name;  // -P
  bool all_cpus = false;     // -a (record only)
  std::string duration;      // -d
  std::string event = "cpu-clock";
  std::string count;    // -c
  bool kernel = false;  // -k
  bool no_inherit = false;
  bool frequency_given = false;
  bool off_cpu = false;     // --off-cpu
  std::string off_cpu_min;  // --off-cpu-min DUR ("": the default)
  // --engine: perf, bpf or auto (record/engine.hpp); "" when not given:
  // $STROBE_CAPTURE_ENGINE, else kDefaultEngine.
  std::string engine;
};

// The engine when --engine is not given (docs/BENCHMARKS.md, "Capture
// engines", has the measurement behind it).
inline constexpr const char* kDefaultEngine = "perf";

// How a subcommand words its usage errors.
struct CommandUsage {
  std::string targets;  // "a command, -p PID, -P NAME, -a"
  std::string usage;    // "usage: strobe record [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME, -a"
  std::string dashes;   // "usage: strobe record [OPTIONS] -- CMD [ARGS]"
};

// Registers -F, -g, --mmap-pages, -p, -P, -d, -e, -c, -k, --no-inherit,
// --off-cpu, --off-cpu-min and --engine on `sub`.
void addSamplingOptions(CLI::App* sub, RecordArgs& a);

// Fills a.command from what followed "--" (has_dashes) or else from the
// arguments CLI11 left over; an unknown option before the command is a
// usage error. Returns 0, or the exit status after an error.
int takeCommand(RecordArgs& a, CLI::App* sub, bool has_dashes,
                const std::vector<std::string>& command, const CommandUsage& u);

// Prints "unknown option 'ARG'" with a hint (the nearest option of `sub`,
// when one is a typo away) and returns the usage status.
int unknownOption(const CLI::App* sub, const std::string& arg);

// Checks `a` and fills `opt` (-P NAME resolved to its pid, --engine auto to
// the engine that can record, saying once when that is not the first
// choice). Returns 0, or the exit status after printing the error.
int toRecordOptions(const RecordArgs& a, const CommandUsage& u, record::RecordOptions& opt);

}  // namespace strobe::cli
