// strobe import [FILE] [-o OUT] [--event NAME]: a perf.data as a native
// recording, symbolized once and self-contained (the code of its sampled
// functions kept for annotate).
#include <fmt/format.h>

#include <unistd.h>

#include <memory>

#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/record_output.hpp"
#include "cli/recording_input.hpp"
#include "model/aggregate.hpp"
#include "output/stack_completeness.hpp"
#include "output/text_report.hpp"
#include "store/store.hpp"

namespace strobe::cli {
namespace {

struct ImportArgs {
  std::string file = "perf.data";
  std::string output = "strobe.db";
  std::string event;
};

int runImport(const ImportArgs& a) {
  if (!isPerfDataInput(a.file)) {
    std::string why = "it is not a perf.data file";
    if (::access(a.file.c_str(), R_OK) != 0) why = "it cannot be read";
    logError("cannot import " + a.file + ": " + why,
             "give a file perf record wrote (strobe report reads strobe's own recordings)");
    return kExitError;
  }
  InputOptions input;
  input.event = a.event;
  input.keep_code = true;  // self-contained: annotate works once the binaries are gone
  auto profile = readRecording(a.file, input);
  if (!profile) {
    logError(profile.error());
    return exitCodeFor(profile.error()) == kExitUsage ? kExitUsage : kExitError;
  }
  bool moved = false;
  if (!setAsidePrevious(a.output, moved)) return kExitOutput;
  if (Status st = store::writeProfile(*profile, a.output); !st) {
    logError(st.error());
    if (moved) restorePrevious(a.output);
    return kExitOutput;
  }
  const model::Totals t = model::totals(*profile);
  const model::Meta& m = profile->meta();
  fmt::print(stderr, "strobe: imported {} ({}, {} samples, {} thread{}, {}) into {}\n",
             terminalSafe(a.file), m.event, t.samples, t.threads, t.threads == 1 ? "" : "s",
             output::formatDuration(m.duration_ns), terminalSafe(a.output));
  if (std::string s = output::stackCompletenessLine(*profile); !s.empty()) {
    fmt::print(stderr, "strobe: stacks: {}\n", s);
  }
  return 0;
}

}  // namespace

Runner addImportCommand(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* sub = app.add_subcommand(
      "import", "Convert a perf.data (perf record's) into a recording, symbolized once");
  sub->add_option("file", args->file, "The perf.data (- reads perf record -o - from stdin)")
      ->capture_default_str();
  sub->add_option("-o,--output", args->output,
                  "Recording to write (an existing one is kept as FILE.old)")
      ->capture_default_str();
  sub->add_option("--event", args->event,
                  "Which of its events (perf's name, e.g. cycles:u; default: its first)");
  sub->footer(std::string("Examples: strobe import perf.data -o app.db\n"
                          "          perf record -g -o - -- ./app | strobe import - -o app.db\n"
                          "Environment: PERF_BUILDID_DIR (perf's build-id cache, where the\n"
                          "files a perf.data names are looked for by build-id when they are not\n"
                          "at their recorded path; default ~/.debug), DEBUGINFOD_URLS (fetch\n"
                          "missing debug files from these debuginfod servers; off when unset).\n") +
              kExitCodesHelp);
  return [args] { return runImport(*args); };
}

}  // namespace strobe::cli
