#include "cli/report_args.hpp"

#include <unistd.h>

#include <optional>

#include "base/duration.hpp"
#include "base/log.hpp"
#include "cli/exit_codes.hpp"
#include "model/measure.hpp"
#include "output/text_report.hpp"
#include "output/text_width.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::cli {

void addTableOptions(CLI::App* sub, TableArgs& a, const std::string& formats,
                     const std::string& by_help) {
  sub->add_option("-f,--format", a.format, formats + " (default: from -o's extension, else text)");
  sub->add_option("-o,--output", a.output, "Write to this file instead of stdout");
  sub->add_option("--by", a.by, by_help)->capture_default_str();
  sub->add_option("--top", a.top, "Rows to show (0: all)")->capture_default_str();
  sub->add_option("--width", a.width,
                  "text: columns to fit names in (default: the terminal's; 0 or not a terminal: "
                  "never cut)");
  sub->add_option("--threshold", a.threshold,
                  "Hide rows and tree nodes below this percentage of the total");
  sub->add_option("--since", a.since, "Only samples from this time after the start (1.5s)");
  sub->add_option("--until", a.until, "Only samples before this time after the start");
  sub->add_option("--tid", a.tids, "Only these threads (repeatable)");
  sub->add_option("--thread", a.threads,
                  "Only threads whose name or role matches (glob; repeatable)");
  sub->add_flag("--no-inline", a.no_inline, "Fold inlined functions into their caller");
  sub->add_option("--view", a.view,
                  "Which time to show: cpu, off-cpu or wall (cpu + off-cpu); default: wall for "
                  "a recording made with --off-cpu, else cpu");
  sub->add_option("--event", a.event,
                  "A perf.data's event to show (perf's name, e.g. cycles:u; default: its first)");
}

Status applyTableArgs(const TableArgs& a, output::ReportOptions& opt) {
  if (a.top < 0) {
    return makeError("--top " + std::to_string(a.top) + " is not a number of rows",
                     "use --top N with N >= 1, or --top 0 for every row", ErrorKind::kUsage);
  }
  opt.top = static_cast<size_t>(a.top);
  if (a.width != kWidthUnset && a.width < 0) {
    return makeError("--width " + std::to_string(a.width) + " is not a number of columns",
                     "use --width N with N >= 1, or --width 0 to never cut names",
                     ErrorKind::kUsage);
  }
  // Names fit the terminal's width; in a file or a pipe they are whole.
  opt.width = a.width != kWidthUnset ? static_cast<size_t>(a.width)
              : a.output.empty()     ? output::terminalWidth(stdout)
                                     : output::kNoWidthLimit;
  opt.no_inline = a.no_inline;
  if (a.threshold >= 0) opt.threshold_pct = a.threshold;
  std::optional<model::GroupBy> by = model::parseGroupBy(a.by);
  if (!by) {
    return makeError("unknown --by '" + a.by + "'",
                     "use --by function, line, file, module, thread, process or address",
                     ErrorKind::kUsage);
  }
  opt.by = *by;
  if (!a.since.empty()) {
    auto d = parseDuration(a.since);
    if (!d) return d.error();
    opt.filter.since_ns = *d;
  }
  if (!a.until.empty()) {
    auto d = parseDuration(a.until);
    if (!d) return d.error();
    opt.filter.until_ns = *d;
  }
  opt.filter.tids = a.tids;
  opt.filter.threads = a.threads;
  if (!a.view.empty()) {
    std::optional<model::View> v = model::parseView(a.view);
    if (!v) {
      return makeError("unknown --view '" + a.view + "'", "use --view cpu, off-cpu or wall",
                       ErrorKind::kUsage);
    }
    opt.view = *v;
  }
  return {};
}

Result<output::Format> resolveFormat(const TableArgs& a) {
  output::Format format = output::Format::kText;
  if (!a.format.empty()) {
    auto f = output::parseFormat(a.format);
    if (!f) return f.error();
    format = *f;
  } else if (!a.output.empty()) {
    auto f = output::formatFromPath(a.output);
    if (!f) {
      return makeError("cannot tell the format of '" + a.output + "' from its name",
                       "add --format (" + output::formatList() + ")", ErrorKind::kUsage);
    }
    format = *f;
  }
  if (format == output::Format::kPprof && a.output.empty() && isatty(fileno(stdout))) {
    return makeError("pprof output is binary; not writing it to a terminal", "add -o FILE.pb.gz",
                     ErrorKind::kUsage);
  }
  return format;
}

Result<model::Profile> readForReport(const std::string& path, const InputOptions& input) {
  auto profile = readRecording(path, input);
  if (profile) completeForReport(path, *profile);
  return profile;
}

void completeForReport(const std::string& path, model::Profile& profile) {
  if (profile.meta().incomplete != 0) {
    // Streamed by a strobe record that never finished (killed, or unable to
    // write the end): its frames are named now, from the programs as they
    // are on this machine (a changed or missing one is warned about).
    logWarning(path + " is incomplete: strobe record did not finish it (killed?); it holds " +
                   std::to_string(profile.samples().size()) + " samples of the first " +
                   output::formatDuration(profile.meta().duration_ns),
               "frames are named from the programs on this machine now, not as they were "
               "recorded");
    symbolize::Symbolizer symbolizer;
    if (auto st = symbolizer.symbolize(profile); !st) logWarning(st.error().describe());
    for (const std::string& w : symbolizer.warnings()) logWarning(w);
  }
}

Result<std::FILE*> ReportOutput::open(const std::string& path) {
  path_ = path;
  file_ = stdout;
  if (path.empty()) return file_;
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    file_ = stdout;
    return systemError("cannot create '" + path + "'",
                       "check that the folder exists and is writable");
  }
  return file_;
}

Status ReportOutput::close(Status written) {
  if (file_ != stdout && std::fclose(file_) != 0 && written) {
    written = systemError("cannot write '" + path_ + "'", "check free space");
  }
  if (!written && file_ != stdout) std::remove(path_.c_str());
  file_ = stdout;
  return written;
}

}  // namespace strobe::cli
