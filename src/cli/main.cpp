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
#include "cli/record_args.hpp"

namespace {

// One line (and a hint) for CLI11's parse errors: an unknown option or an
// unexpected argument by name, a missing or malformed value by option.
int usageError(const CLI::ParseError& e, const CLI::App* sub) {
  using namespace strobe::cli;
  const std::string help =
      sub != nullptr ? "see 'strobe " + sub->get_name() + " --help'" : "see 'strobe --help'";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && sub != nullptr) {
    std::vector<std::string> extra = sub->remaining();
    if (!extra.empty() && extra.front().size() > 1 && extra.front()[0] == '-') {
      return unknownOption(sub, extra.front());
    }
    if (!extra.empty()) {
      strobe::logError("unexpected argument '" + extra.front() + "'", help);
      return kExitUsage;
    }
  }
  std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // "The following argument was not expected: --foo"
    std::string arg = what.substr(what.rfind(": ") + 2);
    arg = arg.substr(0, arg.find(' '));
    strobe::logError((arg[0] == '-' ? "unknown option '" : "unexpected argument '") + arg + "'",
                     help);
    return kExitUsage;
  }
  // CLI11's "Could not convert: --top = abc", "--top: 1 required INT missing".
  if (what.rfind("Could not convert: ", 0) == 0) {
    std::string rest = what.substr(19);
    size_t eq = rest.find(" = ");
    if (eq != std::string::npos) {
      what = rest.substr(0, eq) + " " + rest.substr(eq + 3) + " is not a valid value";
    }
  } else if (size_t missing = what.find(" required ");
             missing != std::string::npos && what.find(" missing") != std::string::npos) {
    what = what.substr(0, what.find(':')) + " needs a value";
  }
  strobe::logError(what, help);
  return kExitUsage;
}

}  // namespace

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
      {"diff", [&] { return addDiffCommand(app); }},
      {"top", [&] { return addTopCommand(app, has_dashes, command); }},
      {"symbolize", [&] { return addSymbolizeCommand(app); }},
      {"query", [&] { return addQueryCommand(app); }},
      {"list", [&] { return addListCommand(app); }},
      {"annotate", [&] { return addAnnotateCommand(app); }},
      {"import", [&] { return addImportCommand(app); }},
      {"agent", [&] { return addAgentCommand(app, has_dashes, command); }},
  };
  const auto named = std::find_if(std::begin(subcommands), std::end(subcommands), [&](auto& s) {
    return !args.empty() && args.front() == s.first;
  });
  // The hint names every command of the table above, in its order.
  std::string use = "use strobe";
  for (size_t i = 0; i < std::size(subcommands); ++i) {
    use += i == 0 ? " " : i + 1 == std::size(subcommands) ? " or " : ", ";
    use += subcommands[i].first;
  }
  use += " (strobe --help)";
  if (args.empty()) {
    strobe::logError("no command given", use);
    return kExitUsage;
  }
  if (named == std::end(subcommands)) {
    const std::string& first = args.front();
    if (first[0] != '-') {
      strobe::logError("unknown command '" + first + "'", use);
      return kExitUsage;
    }
    if (first != "-h" && first != "--help" && first != "--help-all" && first != "--version") {
      strobe::logError("unknown option '" + first + "'", use);
      return kExitUsage;
    }
  }
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
    // The subcommand being parsed, for its own options and help.
    const CLI::App* sub = nullptr;
    for (auto& [s, run] : runners) {
      if (s->parsed()) sub = s;
    }
    return usageError(e, sub);
  }
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  return kExitUsage;
}
