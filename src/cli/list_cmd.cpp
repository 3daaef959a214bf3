// strobe list [DIR]: the recordings in a folder (strobe's and perf.data files), newest first.
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <memory>

#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "import/perf_summary.hpp"
#include "output/text_report.hpp"
#include "perfdata/reader.hpp"
#include "store/query.hpp"

namespace strobe::cli {
namespace {

struct ListArgs {
  std::string dir = ".";
};

std::string startTime(uint64_t realtime_ns) {
  if (realtime_ns == 0) return "-";
  std::time_t t = static_cast<std::time_t>(realtime_ns / 1'000'000'000ULL);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

int runList(const ListArgs& a) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(a.dir, ec)) {
    logError("no folder at " + a.dir, "name a folder that holds recordings: strobe list DIR");
    return kExitUsage;
  }
  struct Entry {
    std::string file;
    store::RecordingSummary s;
  };
  std::vector<Entry> entries;
  for (const auto& de : fs::directory_iterator(a.dir, ec)) {
    if (!de.is_regular_file(ec)) continue;
    if (de.path().extension() != ".db") {
      // perf's recordings, by their magic (perf.data, perf.data.old, ...).
      if (!perfdata::isPerfDataFile(de.path().string())) continue;
      auto p = import::summarizePerfData(de.path().string());
      if (!p) {
        logWarning(p.error().describe(), p.error().hint);
        continue;
      }
      store::RecordingSummary s;
      s.command = std::move(p->command);
      s.target = std::move(p->target);
      s.start_realtime_ns = p->start_realtime_ns;
      s.duration_ns = p->duration_ns;
      s.samples = p->samples;
      s.incomplete = p->cut_short;
      entries.push_back({terminalSafe(de.path().filename().string()), std::move(s)});
      continue;
    }
    auto s = store::readSummary(de.path().string());
    if (!s) {
      // Other programs' .db files are not an error; damaged recordings are.
      if (s.error().kind != ErrorKind::kCorrupt ||
          s.error().message.find("is not a strobe recording") == std::string::npos) {
        logWarning(s.error().describe(), s.error().hint);
      }
      continue;
    }
    entries.push_back({terminalSafe(de.path().filename().string()), std::move(*s)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    if (x.s.start_realtime_ns != y.s.start_realtime_ns) {
      return x.s.start_realtime_ns > y.s.start_realtime_ns;
    }
    return x.file < y.file;
  });
  if (entries.empty()) {
    fmt::print("(no recordings in {})\n", terminalSafe(a.dir));
    return 0;
  }
  size_t width = 4;
  for (const auto& e : entries) width = std::max(width, e.file.size());
  fmt::print("{:<{}}  {:<19}  {:>9}  {:>8}  {}\n", "FILE", width, "START", "DURATION", "SAMPLES",
             "COMMAND");
  for (const auto& e : entries) {
    model::Meta m;
    m.command = e.s.command;
    m.target = e.s.target;
    fmt::print("{:<{}}  {:<19}  {:>9}  {:>8}  {}\n", e.file, width,
               startTime(e.s.start_realtime_ns), output::formatDuration(e.s.duration_ns),
               e.s.samples, output::formatTarget(m) + (e.s.incomplete ? " (incomplete)" : ""));
  }
  return 0;
}

}  // namespace

Runner addListCommand(CLI::App& app) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* sub = app.add_subcommand(
      "list", "List the recordings in a folder (strobe's and perf.data files), newest first");
  sub->add_option("dir", args->dir, "The folder")->capture_default_str();
  return [args] { return runList(*args); };
}

}  // namespace strobe::cli
