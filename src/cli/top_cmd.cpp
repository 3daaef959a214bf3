// strobe top [-F HZ | -c N] [-e EVENT] [-g MODE] [-k] [-d DUR] [--interval DUR]
//            [--by function|line|module|thread] [--window DUR] [--top N] [--view V]
//            [--batch] [-n N] (-- CMD ARGS | -p PID,... | -P NAME)
#include <unistd.h>

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <memory>

#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/record_args.hpp"
#include "model/measure.hpp"
#include "output/text_width.hpp"
#include "record/options.hpp"
#include "record/session.hpp"
#include "tui/live_top.hpp"

namespace strobe::cli {
namespace {

const CommandUsage kTopUsage{"a command, -p PID, -P NAME",
                             "usage: strobe top [OPTIONS] -- CMD [ARGS], or -p PID, -P NAME",
                             "usage: strobe top [OPTIONS] -- CMD [ARGS]"};

struct TopArgs {
  RecordArgs rec;
  std::string interval = "1s";
  std::string by = "function";
  std::string window;  // "": cumulative
  int64_t top = 20;
  int64_t width = INT64_MIN;  // unset: the terminal's (batch mode off a terminal: never cut)
  bool batch = false;
  size_t snapshots = 0;  // -n; 0: until the target ends
  std::string view;      // --view cpu|off-cpu|wall ("": cpu, or wall with --off-cpu)
};

int runTop(TopArgs& a) {
  if (!a.view.empty()) {
    std::optional<model::View> v = model::parseView(a.view);
    if (!v) {
      logError("unknown --view '" + a.view + "'", "use --view cpu, off-cpu or wall");
      return kExitUsage;
    }
    // Off-CPU and wall time need the off-CPU event.
    if (*v != model::View::kCpu) a.rec.off_cpu = true;
  }
  record::RecordOptions opt;
  if (int rc = toRecordOptions(a.rec, kTopUsage, opt); rc != 0) return rc;
  tui::LiveOptions live;
  if (!tui::parseGroupBy(a.by, live.view.view.by)) {
    logError(fmt::format("--by {} is not a top grouping", a.by),
             "use --by function, line, module or thread");
    return kExitUsage;
  }
  auto interval = record::parseSessionDuration(a.interval);
  if (!interval) {
    logError(interval.error());
    return kExitUsage;
  }
  live.interval_ns = *interval;
  if (!a.window.empty()) {
    auto window = record::parseSessionDuration(a.window);
    if (!window) {
      logError(window.error());
      return kExitUsage;
    }
    live.view.view.window_ns = *window;
    live.view.window_ns = *window;
  }
  if (a.top <= 0) {
    logError(a.top == 0 ? std::string("--top 0 shows nothing")
                        : "--top " + std::to_string(a.top) + " is not a number of rows",
             "give the number of rows to show, e.g. --top 20");
    return kExitUsage;
  }
  live.view.view.top = static_cast<size_t>(a.top);
  if (!a.view.empty()) live.view.view.view = *model::parseView(a.view);
  if (a.width != INT64_MIN && a.width < 0) {
    logError("--width " + std::to_string(a.width) + " is not a number of columns",
             "use --width N with N >= 1, or --width 0 to never cut names");
    return kExitUsage;
  }
  live.width = a.width != INT64_MIN ? static_cast<size_t>(a.width) : output::terminalWidth(stdout);
  live.max_snapshots = a.snapshots;
  live.interactive = !a.batch && ::isatty(STDOUT_FILENO) != 0 && ::isatty(STDIN_FILENO) != 0;
  if (live.interactive) {
    if (auto st = tui::CursesScreen::check(); !st) {
      logError(st.error());
      return kExitUnsupported;
    }
  }

  tui::LiveTop view(live, stdout);
  opt.tick_ns = view.tickNs();
  opt.on_tick = [&view](model::Profile& p, const record::TickInfo& t) { return view.onTick(p, t); };
  model::Profile profile;
  auto outcome = record::record(opt, profile);
  if (!outcome) {
    view.close();
    logError(outcome.error());
    return exitCodeFor(outcome.error());
  }
  view.finish(profile, outcome->kept_files.get(), outcome->stats.lost);
  if (!view.error().message.empty()) {
    logError(view.error());
    return kExitUnsupported;
  }
  for (const std::string& w : view.warnings()) logWarning(w);
  for (const std::string& w : outcome->warnings) logWarning(w);
  return outcome->exit_status;
}

}  // namespace

Runner addTopCommand(CLI::App& app, bool has_dashes, std::vector<std::string> command) {
  auto args = std::make_shared<TopArgs>();
  CLI::App* sub = app.add_subcommand("top", "Show live where a program spends CPU time");
  addSamplingOptions(sub, args->rec);
  sub->add_option("--interval", args->interval, "Time between refreshes: 1s, 500ms, ...")
      ->capture_default_str();
  sub->add_option("--by", args->by, "Rows by function, line, module or thread")
      ->capture_default_str();
  sub->add_option("--window", args->window,
                  "Show only the samples of this last stretch of time (default: all so far)");
  sub->add_option("--top", args->top, "Rows to show")->capture_default_str();
  sub->add_option("--width", args->width,
                  "Batch mode: columns to fit names in (default: the terminal's; 0 or not a "
                  "terminal: never cut)");
  sub->add_flag("--batch", args->batch,
                "Print a text snapshot every interval instead of the interactive screen "
                "(the default when stdout is not a terminal)");
  sub->add_option("-n,--snapshots", args->snapshots, "Batch mode: stop after N snapshots");
  sub->add_option("--view", args->view,
                  "Which time to show: cpu, off-cpu (where threads wait) or wall (both); "
                  "off-cpu and wall record off-CPU time (as --off-cpu)");
  sub->add_option("command", args->rec.command, "The command to profile and its arguments");
  sub->prefix_command();
  sub->footer(
      std::string("Examples: strobe top -p 1234\n"
                  "          strobe top --batch -n 5 --by line -- ./server\n"
                  "Keys: q quit, f/l/m/t rows by function/line/module/thread, w cumulative\n"
                  "or windowed (--window, else the last 5 s), + and - more or fewer rows.\n") +
      kExitCodesHelp);
  return [args, sub, has_dashes, command] {
    if (int rc = takeCommand(args->rec, sub, has_dashes, command, kTopUsage); rc != 0) return rc;
    return runTop(*args);
  };
}

}  // namespace strobe::cli
