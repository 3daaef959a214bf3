// The subcommands: each registers its options on the CLI11 app and returns
// a runner to call once parsing succeeded. One file per subcommand.
// Thread safety: main thread only.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace strobe::cli {

using Runner = std::function<int()>;

// `command` is what followed "--" on the command line (has_dashes tells
// whether there was one); without "--" the command is the first positional
// argument and everything after it.
Runner addRecordCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command);
// `top` takes the command the same way.
Runner addTopCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command);
Runner addReportCommand(CLI::App& app);
Runner addDiffCommand(CLI::App& app);
Runner addSymbolizeCommand(CLI::App& app);
Runner addQueryCommand(CLI::App& app);
Runner addListCommand(CLI::App& app);
Runner addAnnotateCommand(CLI::App& app);
Runner addImportCommand(CLI::App& app);
// `agent` refuses a command (it profiles running processes).
Runner addAgentCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command);

}  // namespace strobe::cli
