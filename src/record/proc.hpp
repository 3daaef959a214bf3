// What /proc says about running processes, for attaching to them: which
// processes and threads exist, their names and command lines, their file
// mappings (the kernel reports no MMAP2 records for mappings made before an
// event existed, so they are synthesized from /proc/PID/maps, as perf does),
// and the GNU build-id of a mapped file.
//
// Owns: nothing; every function opens and closes its own files.
// Thread safety: all functions are reentrant. Not async-signal-safe.
// Errors: processes and threads vanish at any moment; functions that list
// or read them return empty results for a task that is gone, never fail.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::record {

// One line of /proc/PID/maps.
struct ProcMapping {
  uint64_t start = 0, end = 0, pgoff = 0;
  bool exec = false;
  std::string path;  // "" for anonymous memory; "[vdso]", "/usr/lib/...", ...
};

// Parses the text of /proc/PID/maps; malformed lines are skipped.
std::vector<ProcMapping> parseMaps(std::string_view text);

// /proc/PID/maps of a process (empty when gone). kPermission when it may
// not be read (another user's process).
Result<std::vector<ProcMapping>> readMaps(pid_t pid);

// The GNU build-id of an ELF file as lowercase hex, "" when it has none or
// cannot be read. Reads only the ELF header, program headers and notes.
std::string readBuildId(const std::string& path);
// The GNU build-id among ELF notes (a PT_NOTE's bytes, /sys/kernel/notes),
// "" when none.
std::string buildIdInNotes(const uint8_t* notes, size_t size);

// Whether /proc/PID exists and the process has not exited (a zombie counts
// as exited).
bool processAlive(pid_t pid);

// Whether /proc/PID exists at all.
bool processExists(pid_t pid);

// The thread ids in /proc/PID/task (sorted; empty when gone).
std::vector<pid_t> listThreads(pid_t pid);

// Every process id in /proc (sorted).
std::vector<pid_t> listProcesses();

// /proc/PID/task/TID/comm without the newline ("" when gone).
std::string readComm(pid_t pid, pid_t tid);

// /proc/PID/cmdline split at NULs (empty for kernel threads and when gone),
// without the empty arguments that trail a rewritten title (see parseCmdline).
std::vector<std::string> readCmdline(pid_t pid);
// The text of a /proc/PID/cmdline split at NULs; trailing empty arguments
// (the NUL padding setproctitle leaves) are dropped.
std::vector<std::string> parseCmdline(std::string_view text);

// A process's CPU time so far, from /proc/PID/stat: its threads' (live and
// exited) and its waited-for children's, in ns (clock-tick resolution).
struct ProcessCpu {
  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
};
std::optional<ProcessCpu> readProcessCpu(pid_t pid);
// The same from the text of a /proc/PID/stat ("pid (comm) S ppid ..."),
// with `tick_ns` nanoseconds per clock tick; nullopt when malformed.
std::optional<ProcessCpu> parseProcessCpu(std::string_view stat, uint64_t tick_ns);

// Live (not zombie) processes below `root` in the process tree, at any depth.
size_t countLiveDescendants(pid_t root);

struct ProcessMatch {
  pid_t pid = 0;
  std::string comm;
  std::vector<std::string> cmdline;
};

// Processes named `name`: those whose comm equals it; when there are none,
// those with a command-line argument equal to it or whose last path
// component equals it (so "server.py" finds "python3 ./server.py").
// `exclude` (strobe itself) and its ancestors (the shell, `timeout`,
// `sudo`, ... it runs under, whose command lines often hold NAME) are never
// matched. Sorted by pid.
std::vector<ProcessMatch> findProcessesByName(std::string_view name, pid_t exclude);

// Number of open file descriptors of the calling process (/proc/self/fd).
int countOpenFds();

// Raises the calling process's soft descriptor limit to the hard one (and
// leaves it there); returns the soft limit.
uint64_t raiseFdLimit();

}  // namespace strobe::record
