// strobe annotate [FILE] FUNCTION [--no-source] [--threshold PCT]
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/recording_input.hpp"
#include "cli/source_files.hpp"
#include "model/aggregate.hpp"
#include "output/annotate.hpp"
#include "output/annotate_writer.hpp"
#include "output/text_report.hpp"
#include "store/store.hpp"

namespace strobe::cli {
namespace {

struct AnnotateArgs {
  // [FILE] FUNCTION: with one argument, it is the function (CLI11 fills
  // positionals in order, and its way round that breaks options after them).
  std::string file;
  std::string function;
  bool no_source = false;
  double threshold = 0;
  std::string event;  // --event: which of a perf.data's events
};

bool useColor() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr && term != nullptr &&
         std::strcmp(term, "dumb") != 0;
}

int runAnnotate(const AnnotateArgs& a) {
  if (a.file.empty() && a.function.empty()) {
    return failWith(makeError("name the function to annotate",
                              "strobe annotate [FILE] FUNCTION; strobe report FILE lists the "
                              "sampled functions",
                              ErrorKind::kUsage));
  }
  const std::string file = a.function.empty() ? std::string("strobe.db") : a.file;
  const std::string& query = a.function.empty() ? a.file : a.function;
  if (!(a.threshold >= 0 && a.threshold <= 100)) {
    return failWith(makeError(fmt::format("--threshold {} is not a percentage", a.threshold),
                              "give a share from 0 to 100, e.g. --threshold 1", ErrorKind::kUsage));
  }
  InputOptions input;
  input.event = a.event;
  input.keep_code = true;  // a perf.data's functions, read from the files now
  const bool perf_data = isPerfDataInput(file);
  auto profile = readRecording(file, input);
  if (!profile) return failWith(profile.error());
  auto has_code = perf_data ? Result<bool>(true) : store::readCode(file, *profile);
  if (!has_code) {
    logWarning(has_code.error().describe(), has_code.error().hint);
  } else if (!*has_code) {
    return failWith(
        makeError(file + " was recorded before strobe kept the code of sampled functions",
                  "record it again with this strobe to annotate it"));
  }

  std::vector<output::AnnotateCandidate> matches = output::matchFunctions(*profile, query);
  if (matches.empty()) {
    return failWith(makeError("no sampled function matches '" + query + "' in " + file,
                              "see the sampled functions: strobe report " + file + " --top 0",
                              ErrorKind::kUsage));
  }
  std::set<std::string> names;
  for (const auto& m : matches) names.insert(m.name);
  if (names.size() > 1) {
    const uint64_t total = model::totals(*profile).weight;
    std::string list;
    std::set<std::string> listed;
    for (const auto& m : matches) {
      if (!listed.insert(m.name).second) continue;
      list += fmt::format("  {}  ({}, {:.1f}% self)\n", terminalSafe(m.name),
                          terminalSafe(m.module), output::sharePct(m.weight, total));
    }
    // One error line, the candidates (names escaped as every strobe: line
    // is, base/log.hpp), then the hint.
    logError(fmt::format("{} functions match '{}':", names.size(), query));
    std::fputs(list.c_str(), stderr);
    std::fputs(terminalSafe("  hint: name one exactly, in quotes: strobe annotate " + file + " '" +
                            matches[0].name + "'")
                   .append("\n")
                   .c_str(),
               stderr);
    return kExitAmbiguous;
  }

  // A function inlined everywhere it was sampled has no code of its own:
  // annotate the functions it was inlined into.
  std::vector<model::FunctionId> targets;
  for (const auto& m : matches) {
    if (m.weight > 0 || m.has_code || m.inlined_into.empty()) {
      targets.push_back(m.function);
      continue;
    }
    std::string into;
    for (model::FunctionId f : m.inlined_into) {
      if (!into.empty()) into += ", ";
      into += profile->str(profile->functions()[f].name);
      targets.push_back(f);
    }
    logInfo(fmt::format("{} has no code of its own: it was inlined into {}", m.name, into));
  }

  SourceFiles sources;
  output::AnnotateTextOptions opt;
  opt.source = !a.no_source;
  opt.threshold_pct = a.threshold;
  opt.color = useColor();
  opt.event = profile->meta().event;
  opt.source_text = [&sources](const std::string& f, uint32_t line) {
    return sources.line(f, line);
  };
  bool any = false;
  std::set<model::FunctionId> done;
  for (model::FunctionId f : targets) {
    if (!done.insert(f).second) continue;
    output::Annotation ann = output::annotate(*profile, f);
    for (const std::string& w : ann.warnings) logWarning(w);
    if (any) std::fputs("\n", stdout);
    output::writeAnnotation(ann, opt, stdout);
    for (const auto& part : ann.parts) any = any || !part.instructions.empty();
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return failWith(
        systemError("cannot write the annotation", "check the output path and free space"));
  }
  if (!any) {
    return failWith(makeError("the recording holds no code of '" + query + "' to disassemble",
                              "see the warnings above"));
  }
  return 0;
}

}  // namespace

Runner addAnnotateCommand(CLI::App& app) {
  auto args = std::make_shared<AnnotateArgs>();
  CLI::App* sub = app.add_subcommand(
      "annotate", "Disassemble a sampled function with each instruction's share of its samples");
  sub->add_option("file", args->file,
                  "The recording, strobe's or a perf.data (default strobe.db; may be left out)")
      ->type_name("FILE");
  sub->add_option("function", args->function,
                  "The function: its exact name, its name without parameters (and scopes), "
                  "or a prefix naming one function")
      ->type_name("FUNCTION");
  sub->add_flag("--no-source", args->no_source, "No source lines between the instructions");
  sub->add_option("--event", args->event, "A perf.data's event (default: its first)");
  sub->add_option("--threshold", args->threshold,
                  "Show only instructions with at least this percentage of the function's samples");
  sub->footer(std::string("Examples: strobe annotate 'hot(int)'\n"
                          "          strobe annotate app.db parse --threshold 1\n"
                          "Colour when stdout is a terminal (not with NO_COLOR set).\n") +
              kExitCodesHelp);
  return [args] { return runAnnotate(*args); };
}

}  // namespace strobe::cli
