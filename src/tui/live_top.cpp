#include "tui/live_top.hpp"

#include <algorithm>
#include <chrono>

#include "tui/text_view.hpp"

namespace strobe::tui {
namespace {

// Interactive mode reads keys this often.
constexpr uint64_t kKeyPollNs = 100'000'000;
// The longest a refresh waits for debug information to be read: the rings
// hold about 0.6 s of samples at 4 kHz with the default 128 pages.
constexpr uint64_t kMaxWaitNs = 250'000'000;
constexpr uint64_t kFirstWaitNs = 1'000'000'000;

}  // namespace

LiveTop::LiveTop(LiveOptions opt, std::FILE* out)
    : opt_(std::move(opt)),
      out_(out),
      symbolizer_([this](const std::string& path, const std::string& build_id) {
        return kept_ != nullptr ? kept_->pathFor(path, build_id) : std::string();
      }) {}

uint64_t LiveTop::refreshWaitNs() const {
  // The first refresh names what it can (the modules' files are opened then);
  // later ones only what is new, and leave the rest for the next.
  return shown_ == 0 ? std::min(opt_.interval_ns, kFirstWaitNs)
                     : std::min(opt_.interval_ns / 2, kMaxWaitNs);
}

uint64_t LiveTop::tickNs() const {
  return opt_.interactive ? std::min(kKeyPollNs, opt_.interval_ns) : opt_.interval_ns;
}

void LiveTop::show(model::Profile& p, uint64_t elapsed_ns, uint64_t lost, uint64_t wait_ns) {
  symbolizer_.step(p, wait_ns);
  SnapshotOptions view = opt_.view.view;
  if (screen_) view.top = std::min(view.top, screen_->rowsThatFit());
  Snapshot snap = buildSnapshot(p, view, SessionStatus{elapsed_ns, lost, open_off_cpu_});
  if (screen_) {
    screen_->draw(snap, keysHelp());
  } else {
    if (shown_ > 0) std::fputc('\n', out_);
    std::string text = formatSnapshot(snap, opt_.width);
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
  }
  ++shown_;
  samples_at_last_show_ = p.samples().size();
}

bool LiveTop::onTick(model::Profile& p, const record::TickInfo& t) {
  kept_ = t.kept_files;
  last_elapsed_ns_ = t.elapsed_ns;
  last_lost_ = t.stats != nullptr ? t.stats->lost : 0;
  open_off_cpu_ = t.open_off_cpu;
  if (!opt_.interactive) {
    show(p, t.elapsed_ns, last_lost_, refreshWaitNs());
    return opt_.max_snapshots == 0 || shown_ < opt_.max_snapshots;
  }
  if (!screen_) {
    auto screen = CursesScreen::open();
    if (!screen) {
      error_ = screen.takeError();
      return false;
    }
    screen_ = std::move(*screen);
  }
  bool redraw = t.elapsed_ns >= next_show_ns_;
  for (int key = screen_->readKey(); key != -1; key = screen_->readKey()) {
    if (key == CursesScreen::kResized) {
      redraw = true;
      continue;
    }
    switch (applyKey(key, opt_.view)) {
      case KeyEffect::kQuit:
        return false;
      case KeyEffect::kRedraw:
        redraw = true;
        break;
      case KeyEffect::kNone:
        break;
    }
  }
  if (redraw) {
    show(p, t.elapsed_ns, last_lost_, refreshWaitNs());
    next_show_ns_ = t.elapsed_ns + opt_.interval_ns;
  }
  return true;
}

void LiveTop::finish(model::Profile& p, const record::KeptFiles* kept, uint64_t lost) {
  kept_ = kept;
  open_off_cpu_.clear();  // the session closed every interval
  if (opt_.interactive) {
    screen_.reset();
    return;
  }
  const bool room = opt_.max_snapshots == 0 || shown_ < opt_.max_snapshots;
  if (room && (shown_ == 0 || p.samples().size() != samples_at_last_show_)) {
    // The session is over: nothing to drain, so wait for every name.
    show(p, std::max(p.meta().duration_ns, last_elapsed_ns_), lost,
         symbolize::IncrementalSymbolizer::kForever);
  }
}

}  // namespace strobe::tui
