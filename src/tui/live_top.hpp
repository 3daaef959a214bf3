// LiveTop: the refresh loop of `strobe top`, driven by the recording
// session's ticks (record::RecordOptions::on_tick). At each refresh it
// symbolizes the locations that are new since the last one
// (symbolize::IncrementalSymbolizer, kept for the whole session), builds a
// Snapshot and shows it. Debug information is read on a thread of its own:
// a refresh waits for it at most half an interval
// (at most 250 ms; the first refresh a whole interval, at most 1 s), so that
// the session's thread goes back to draining the rings; what is not named
// yet shows as module+0xOFFSET until a later refresh (the last snapshot, after the session, waits
// for every name). Batch mode prints snapshots as text to `out`, separated by a blank line, up to
// `max_snapshots`; interactive mode draws them on a curses screen, reading keys (see keys.hpp)
// between refreshes. The screen takes over the terminal at the first tick, so that errors met while
// the session starts are printed as usual; the caller checks beforehand that the terminal can be
// driven (CursesScreen::check). Owns: the Symbolizer, its resolving thread (joined on destruction)
// and the screen. Thread safety: one thread (the session's) calls everything.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"
#include "record/kept_files.hpp"
#include "record/session.hpp"
#include "symbolize/incremental.hpp"
#include "tui/curses_screen.hpp"
#include "tui/keys.hpp"

namespace strobe::tui {

struct LiveOptions {
  ViewState view;                        // grouping, window, rows
  uint64_t interval_ns = 1'000'000'000;  // between refreshes
  size_t max_snapshots = 0;              // batch: stop after this many (0: no limit)
  bool interactive = false;              // curses; else batch
  size_t width = 0;                      // batch: columns to fit names in (0: never cut)
};

class LiveTop {
 public:
  LiveTop(LiveOptions opt, std::FILE* out);
  LiveTop(const LiveTop&) = delete;  // the symbolizer refers back to it
  LiveTop& operator=(const LiveTop&) = delete;

  // How often the session should call onTick: the interval in batch mode,
  // more often interactively (keys are read at each tick).
  uint64_t tickNs() const;

  // The session's tick; false when the user quit, enough snapshots were
  // printed, or the screen could not be opened (see error()).
  bool onTick(model::Profile& p, const record::TickInfo& t);

  // After the session: batch mode prints a last snapshot of the whole
  // session when samples arrived since the last one or none was printed
  // yet (and -n allows);
  // interactive mode gives the terminal back.
  void finish(model::Profile& p, const record::KeptFiles* kept, uint64_t lost);
  // After a session that failed: gives the terminal back, prints nothing.
  void close() { screen_.reset(); }

  // The symbolizer's warnings so far, each once.
  const std::set<std::string>& warnings() const { return symbolizer_.warnings(); }
  // Why the screen could not be opened; empty message when it could.
  const Error& error() const { return error_; }

 private:
  // Symbolizes (waiting up to wait_ns), builds the snapshot and shows it.
  void show(model::Profile& p, uint64_t elapsed_ns, uint64_t lost, uint64_t wait_ns);
  [[nodiscard]] uint64_t refreshWaitNs() const;

  LiveOptions opt_;
  std::FILE* out_;
  const record::KeptFiles* kept_ = nullptr;  // the session's, updated at each tick
  symbolize::IncrementalSymbolizer symbolizer_;
  std::unique_ptr<CursesScreen> screen_;
  size_t shown_ = 0;                 // snapshots shown
  size_t samples_at_last_show_ = 0;  // to skip an identical last snapshot
  uint64_t next_show_ns_ = 0;        // interactive: elapsed time of the next refresh
  uint64_t last_elapsed_ns_ = 0;
  uint64_t last_lost_ = 0;
  std::vector<model::Sample> open_off_cpu_;  // threads off CPU at the last tick
  Error error_;
};

}  // namespace strobe::tui
