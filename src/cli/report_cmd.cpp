// strobe report [FILE] [--by function|line] [--top N]
#include <cstdio>

#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "output/text_report.hpp"
#include "store/store.hpp"

namespace strobe::cli {
namespace {

struct ReportArgs {
  std::string file = "strobe.db";
  std::string by = "function";
  size_t top = 20;
};

int runReport(const ReportArgs& a) {
  output::TextOptions opt;
  opt.top = a.top;
  if (a.by == "function") {
    opt.by = model::GroupBy::kFunction;
  } else if (a.by == "line") {
    opt.by = model::GroupBy::kLine;
  } else {
    logError("unknown --by '" + a.by + "'", "use --by function or --by line");
    return kExitUsage;
  }
  auto profile = store::readProfile(a.file);
  if (!profile) {
    logError(profile.error());
    return exitCodeFor(profile.error()) == kExitUsage ? kExitUsage : kExitError;
  }
  output::writeTextReport(*profile, opt, a.file, stdout);
  return 0;
}

}  // namespace

Runner addReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand("report", "Print a report from a recording");
  sub->add_option("file", args->file, "The recording")->capture_default_str();
  sub->add_option("--by", args->by, "Group by: function or line")->capture_default_str();
  sub->add_option("--top", args->top, "Rows to show")->capture_default_str();
  return [args] { return runReport(*args); };
}

}  // namespace strobe::cli
