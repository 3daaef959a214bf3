#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace strobe::cli;
  CLI::App app{"strobe: a sampling CPU profiler for Linux", "strobe"};
  app.set_version_flag("--version", std::string("strobe ") + STROBE_VERSION);
  app.require_subcommand(1);
  app.footer(kExitCodesHelp);

  // Everything after the first "--" is the command to profile, verbatim
  // (its own "--" and options included); CLI11 sees only what precedes it.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> command;
  auto dashes = std::find(args.begin(), args.end(), "--");
  bool has_dashes = dashes != args.end();
  if (has_dashes) {
    command.assign(dashes + 1, args.end());
    args.erase(dashes, args.end());
  }

  // When the first argument names a subcommand only that one is set up:
  // setting up all six took 0.7 ms of every command's start, one 0.3 ms
  // (docs/BENCHMARKS.md). Anything else (--help, --version, a typo) sets
  // up all, for the help text and the error.
  const std::pair<const char*, std::function<Runner()>> subcommands[] = {
      {"record", [&] { return addRecordCommand(app, has_dashes, command); }},
      {"report", [&] { return addReportCommand(app); }},
      {"top", [&] { return addTopCommand(app, has_dashes, command); }},
      {"symbolize", [&] { return addSymbolizeCommand(app); }},
      {"query", [&] { return addQueryCommand(app); }},
      {"list", [&] { return addListCommand(app); }},
      {"annotate", [&] { return addAnnotateCommand(app); }},
      {"agent", [&] { return addAgentCommand(app, has_dashes, command); }},
  };
  const auto named = std::find_if(std::begin(subcommands), std::end(subcommands), [&](auto& s) {
    return !args.empty() && args.front() == s.first;
  });
  std::map<CLI::App*, Runner> runners;
  for (const auto& [name, add] : subcommands) {
    if (named != std::end(subcommands) && named->first != name) continue;
    runners[app.get_subcommand(name)] = add();  // add() runs first (C++17)
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector

  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    strobe::logError(what, "see 'strobe --help' or 'strobe SUBCOMMAND --help'");
    return kExitUsage;
  }
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  return kExitUsage;
}
