#include "record/proc.hpp"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "base/hex.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/fd.hpp"

namespace strobe::record {
namespace {

// The whole file, or nullopt (errno kept) when it cannot be opened or read.
std::optional<std::string> slurp(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

template <typename T>
bool parseInt(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

std::vector<pid_t> numericEntries(const std::string& dir) {
  std::vector<pid_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    pid_t v = 0;
    if (parseInt(std::string_view(e->d_name), v) && v > 0) out.push_back(v);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool preadAll(int fd, void* buf, size_t n, uint64_t off) {
  ssize_t r = ::pread(fd, buf, n, static_cast<off_t>(off));
  return r == static_cast<ssize_t>(n);
}

}  // namespace

std::vector<ProcMapping> parseMaps(std::string_view text) {
  std::vector<ProcMapping> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // start-end perms offset dev inode [path]
    std::string_view fields[5];
    size_t pos = 0;
    bool ok = true;
    for (auto& f : fields) {
      while (pos < line.size() && line[pos] == ' ') ++pos;
      size_t sp = line.find(' ', pos);
      if (sp == std::string_view::npos) sp = line.size();
      f = line.substr(pos, sp - pos);
      if (f.empty()) ok = false;
      pos = sp;
    }
    if (!ok) continue;
    while (pos < line.size() && line[pos] == ' ') ++pos;
    ProcMapping m;
    size_t dash = fields[0].find('-');
    if (dash == std::string_view::npos || !parseInt(fields[0].substr(0, dash), m.start, 16) ||
        !parseInt(fields[0].substr(dash + 1), m.end, 16) || !parseInt(fields[2], m.pgoff, 16) ||
        m.end <= m.start || fields[1].size() < 3) {
      continue;
    }
    m.exec = fields[1][2] == 'x';
    m.path = std::string(line.substr(pos));
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ProcMapping>> readMaps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  auto text = slurp(path);
  if (!text) {
    if (errno == EACCES || errno == EPERM) {
      return systemError("cannot read " + path,
                         "run strobe as that process's user, or grant CAP_SYS_PTRACE (e.g. sudo)",
                         ErrorKind::kPermission);
    }
    return std::vector<ProcMapping>();
  }
  return parseMaps(*text);
}

std::string readBuildId(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  Elf64_Ehdr eh;
  if (!preadAll(fd.get(), &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phnum > 256) {
    return {};
  }
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!preadAll(fd.get(), ph.data(), ph.size() * sizeof(Elf64_Phdr), eh.e_phoff)) return {};
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_NOTE || p.p_filesz > (1u << 16)) continue;
    std::vector<uint8_t> notes(p.p_filesz);
    if (!preadAll(fd.get(), notes.data(), notes.size(), p.p_offset)) continue;
    if (std::string id = buildIdInNotes(notes.data(), notes.size()); !id.empty()) return id;
  }
  return {};
}

std::string buildIdInNotes(const uint8_t* notes, size_t size) {
  size_t off = 0;
  while (off + sizeof(Elf64_Nhdr) <= size) {
    Elf64_Nhdr nh;
    std::memcpy(&nh, notes + off, sizeof nh);
    size_t name_at = off + sizeof nh;
    size_t desc_at = name_at + ((nh.n_namesz + 3) & ~size_t{3});
    size_t next = desc_at + ((nh.n_descsz + 3) & ~size_t{3});
    if (next > size || next <= off) break;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        std::memcmp(notes + name_at, "GNU", 4) == 0 && nh.n_descsz > 0 && nh.n_descsz <= 64) {
      return hexString(notes + desc_at, nh.n_descsz);
    }
    off = next;
  }
  return {};
}

bool processExists(pid_t pid) {
  return pid > 0 && ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0;
}

bool processAlive(pid_t pid) {
  if (pid <= 0) return false;
  auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  // "pid (comm) S ...": the state follows the last ')'.
  size_t paren = stat->rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat->size()) return false;
  char state = (*stat)[paren + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

std::vector<pid_t> listThreads(pid_t pid) {
  return numericEntries("/proc/" + std::to_string(pid) + "/task");
}

std::vector<pid_t> listProcesses() {
  return numericEntries("/proc");
}

std::string readComm(pid_t pid, pid_t tid) {
  auto text = slurp("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  if (!text) return {};
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return *text;
}

std::vector<std::string> parseCmdline(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nul = text.find('\0', pos);
    if (nul == std::string_view::npos) nul = text.size();
    out.emplace_back(text.substr(pos, nul - pos));
    pos = nul + 1;
  }
  // A program that rewrote its title (setproctitle: redis, postgres, nginx)
  // pads the old argument area with NULs: those are not arguments.
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::vector<std::string> readCmdline(pid_t pid) {
  auto text = slurp("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return {};
  return parseCmdline(*text);
}

std::optional<ProcessCpu> parseProcessCpu(std::string_view stat, uint64_t tick_ns) {
  // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt
  // cminflt majflt cmajflt utime stime cutime cstime (fields 3 to 17).
  const size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(paren + 1);
  uint64_t v[15] = {};
  for (int field = 0; field < 15; ++field) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const size_t end = std::min(rest.find(' '), rest.size());
    if (end == 0) return std::nullopt;
    if (field >= 11) {  // utime, stime, cutime, cstime
      auto [p, ec] = std::from_chars(rest.data(), rest.data() + end, v[field]);
      if (ec != std::errc() || p != rest.data() + end) return std::nullopt;
    }
    rest.remove_prefix(end);
  }
  return ProcessCpu{(v[11] + v[13]) * tick_ns, (v[12] + v[14]) * tick_ns};
}

std::optional<ProcessCpu> readProcessCpu(pid_t pid) {
  auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  return parseProcessCpu(
      *stat, ticks > 0 ? 1'000'000'000ULL / static_cast<uint64_t>(ticks) : 10'000'000ULL);
}

size_t countLiveDescendants(pid_t root) {
  // Parent of every live process, from "pid (comm) S ppid ...".
  std::vector<std::pair<pid_t, pid_t>> parent_of;
  for (pid_t pid : listProcesses()) {
    auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) continue;
    size_t paren = stat->rfind(')');
    if (paren == std::string::npos || paren + 4 >= stat->size()) continue;
    const char state = (*stat)[paren + 2];
    if (state == 'Z' || state == 'X' || state == 'x') continue;
    pid_t ppid = 0;
    if (std::sscanf(stat->c_str() + paren + 4, "%d", &ppid) != 1) continue;
    parent_of.emplace_back(pid, ppid);
  }
  std::vector<pid_t> found = {root};
  size_t n = 0;
  // Breadth first: each round adds the children of what was found.
  for (size_t at = 0; at < found.size(); ++at) {
    for (const auto& [pid, ppid] : parent_of) {
      if (ppid == found[at] && pid != root) {
        found.push_back(pid);
        ++n;
      }
    }
  }
  return n;
}

// The parent of `pid` from /proc/PID/stat ("pid (comm) S ppid ..."), 0 when unknown.
static pid_t parentOf(pid_t pid) {
  auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  size_t paren = stat->rfind(')');
  if (paren == std::string::npos || paren + 4 >= stat->size()) return 0;
  return static_cast<pid_t>(std::strtol(stat->c_str() + paren + 4, nullptr, 10));
}

std::vector<ProcessMatch> findProcessesByName(std::string_view name, pid_t exclude) {
  std::vector<ProcessMatch> by_comm;
  std::vector<ProcessMatch> by_cmdline;
  if (name.empty()) return by_comm;
  std::vector<pid_t> skip;
  for (pid_t p = exclude; p > 0 && skip.size() < 4096; p = parentOf(p)) skip.push_back(p);
  for (pid_t pid : listProcesses()) {
    if (std::find(skip.begin(), skip.end(), pid) != skip.end() || !processAlive(pid)) continue;
    ProcessMatch m{pid, readComm(pid, pid), readCmdline(pid)};
    if (m.comm == name) {
      by_comm.push_back(std::move(m));
      continue;
    }
    for (const std::string& arg : m.cmdline) {
      if (arg == name || baseName(arg) == name) {
        by_cmdline.push_back(std::move(m));
        break;
      }
    }
  }
  return by_comm.empty() ? by_cmdline : by_comm;
}

int countOpenFds() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(d);
  return n - 1;  // the directory's own descriptor
}

uint64_t raiseFdLimit() {
  struct rlimit rl = {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return rl.rlim_cur;
}

}  // namespace strobe::record
