#include <algorithm>
#include <cstdio>
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
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector

  std::map<CLI::App*, Runner> runners;
  Runner record = addRecordCommand(app, has_dashes, command);
  Runner report = addReportCommand(app);
  runners[app.get_subcommand("record")] = record;
  runners[app.get_subcommand("report")] = report;
  runners[app.get_subcommand("top")] = addTopCommand(app, has_dashes, command);
  runners[app.get_subcommand("symbolize")] = addSymbolizeCommand(app);
  runners[app.get_subcommand("query")] = addQueryCommand(app);
  runners[app.get_subcommand("list")] = addListCommand(app);

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
