// Preload mode: when libstrobe is loaded (LD_PRELOAD or linked) with STROBE_*
// variables set, its constructor configures profiling of the whole program:
//   STROBE_OUTPUT=FILE   profile from start to exit, written to FILE at exit
//                        ("%p" in FILE becomes the pid)
//   STROBE_SIGNAL=SIG    instead wait: each SIG toggles start/stop, and every
//                        stop writes FILE with a number before its extension
//                        (app.1.pb.gz, app.2.pb.gz, ...)
//   STROBE_HTTP=ADDR     serve /debug/pprof/profile on ADDR (HOST:PORT)
//   STROBE_FREQ, STROBE_MODE (cpu|wall), STROBE_ENGINE (auto|perf|timer),
//   STROBE_DEPTH, STROBE_FORMAT (default: from FILE's extension, else text)
// Messages go to stderr with the "strobe: " prefix. A profile running at
// exit is written then, also with STROBE_SIGNAL (as the next numbered file).
// A forked child writes nothing (it has no session); an exec'd program
// starts afresh.
// The signal handler of STROBE_SIGNAL only writes one byte to a pipe; a
// libstrobe thread does the toggling.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/log.hpp"
#include "inproc/http_server.hpp"
#include "inproc/preload_env.hpp"
#include "inproc/session.hpp"
#include "inproc/writer.hpp"
#include "output/unsampled_threads.hpp"

namespace strobe::inproc {
namespace {

// Allocated in the constructor: this file's dynamic initializers may not
// have run when it does.
PreloadConfig* g_cfg = nullptr;
pid_t g_owner = 0;
int g_pipe[2] = {-1, -1};
std::atomic<unsigned> g_serial{0};  // the toggle thread and atexit both number files

void writeOut(const std::string& path) {
  std::string refused;
  Status s = withLastProfile([&](const model::Profile& p) {
    refused = output::refusedThreadsLine(p);
    return writeProfileFile(p, g_cfg->format, path);
  });
  if (!s.ok()) {
    logError(s.error());
    return;
  }
  // Which engine `auto` picked, and what was lost, with every profile.
  std::string msg = "profile written to " + path + " (" + engineName() + " engine, " +
                    std::to_string(sampleCount()) + " samples, " +
                    std::to_string(droppedSamples()) + " dropped)";
  logInfo(msg);
  if (!refused.empty()) logWarning(refused, output::kRefusedThreadsHint);
}

// Why `auto` fell back to the timer engine, once per start.
void sayFallback() {
  std::string reason = engineFallbackReason();
  if (!reason.empty()) logInfo(reason + "; using the timer engine");
}

// A profile still running at exit is written as a stop would write it
// (numbered with STROBE_SIGNAL).
void atExit() {
  if (::getpid() != g_owner || !sessionRunning()) return;
  if (Status s = stopSession(); !s.ok()) {
    // The toggle thread stopped (and wrote) it meanwhile.
    if (!sessionRunning() && s.error().kind == ErrorKind::kUsage) return;
    return logError(s.error());
  }
  if (Status s = samplingStoppedEarly(); !s.ok()) logWarning(s.error().describe(), s.error().hint);
  const std::string path = expandPid(g_cfg->output, g_owner);
  writeOut(g_cfg->signal != 0 ? numberedPath(path, ++g_serial) : path);
}

void onToggleSignal(int) {
  int saved = errno;
  char c = 't';
  ssize_t n = ::write(g_pipe[1], &c, 1);
  (void)n;
  errno = saved;
}

void toggleLoop() {
  char c;
  while (true) {
    ssize_t n = ::read(g_pipe[0], &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    if (::getpid() != g_owner) return;
    if (!sessionRunning()) {
      if (Status s = startSession(g_cfg->options); !s.ok()) {
        logError(s.error());
      } else {
        sayFallback();
        logInfo("profiling started (" + engineName() + " engine)");
      }
    } else {
      if (Status s = stopSession(); !s.ok()) {
        logError(s.error());
        continue;
      }
      if (Status s = samplingStoppedEarly(); !s.ok()) {
        logWarning(s.error().describe(), s.error().hint);
      }
      writeOut(numberedPath(expandPid(g_cfg->output, g_owner), ++g_serial));
    }
  }
}

__attribute__((constructor)) void preloadInit() {
  auto cfg = readPreloadConfig();
  if (!cfg.ok()) {
    logError(cfg.error());
    return;
  }
  if (!cfg->active()) return;
  g_cfg = new PreloadConfig(std::move(*cfg));
  g_owner = ::getpid();
  if (!g_cfg->http.empty()) {
    if (Status s = serveHttp(g_cfg->http); !s.ok()) {
      logError(s.error());
    } else {
      logInfo("serving /debug/pprof/profile on port " + std::to_string(httpPort()));
    }
  }
  if (g_cfg->signal != 0) {
    if (::pipe2(g_pipe, O_CLOEXEC) != 0) return logError("cannot create the signal pipe");
    struct sigaction sa {};
    sa.sa_handler = onToggleSignal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(g_cfg->signal, &sa, nullptr);
    spawnInternalThread(toggleLoop).detach();
    if (!g_cfg->output.empty()) std::atexit(atExit);
    return;
  }
  if (g_cfg->output.empty()) return;
  if (Status s = startSession(g_cfg->options); !s.ok()) return logError(s.error());
  sayFallback();
  std::atexit(atExit);
}

}  // namespace
}  // namespace strobe::inproc
