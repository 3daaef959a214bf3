#include "run_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "completeness_check.hpp"

extern char** environ;

namespace strobe::test {

namespace {

// The command lines of the processes startProcess() started, until waited
// for (waitProcess checks the recordings they made).
std::mutex g_started_mu;
std::map<int, std::vector<std::string>>& started() {
  static std::map<int, std::vector<std::string>> m;
  return m;
}

}  // namespace

int startProcess(const std::vector<std::string>& argv, const std::string& dir) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string out = dir + "/stdout";
  std::string err = dir + "/stderr";
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  std::lock_guard lock(g_started_mu);
  started()[pid] = argv;
  return pid;
}

Ran waitProcess(int pid, const std::string& dir) {
  Ran r;
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid) {
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  r.out = readFile(dir + "/stdout");
  r.err = readFile(dir + "/stderr");
  std::vector<std::string> argv;
  {
    std::lock_guard lock(g_started_mu);
    if (auto it = started().find(pid); it != started().end()) {
      argv = std::move(it->second);
      started().erase(it);
    }
  }
  // Every recording the suite makes: its completeness line against its stacks.
  checkRecordingCompleteness(argv, r);
  return r;
}

Ran runProcess(const std::vector<std::string>& argv) {
  std::string dir = makeTempDir();
  Ran r = waitProcess(startProcess(argv, dir), dir);
  removeTree(dir);
  return r;
}

namespace {

// FNV-1a, for a folder name.
uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

SharedRun runOnce(const std::string& name, const std::vector<std::string>& argv) {
  uint64_t key = 0xcbf29ce484222325ULL;
  for (const std::string& a : argv) {
    key = fnv1a(a + '\0', key);
    struct stat st {};
    if (::stat(a.c_str(), &st) == 0) {
      key =
          fnv1a(std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec), key);
    }
  }
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).starts_with("STROBE_")) key = fnv1a(std::string(*e) + '\0', key);
  }
  const std::string root = STROBE_BINARY_DIR "/tests/shared";
  std::filesystem::create_directories(root);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  SharedRun shared{{}, root + "/" + name + "-" + hex};
  int lock = ::open((root + "/" + name + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) std::abort();
  if (!std::filesystem::exists(shared.dir + "/status")) {
    // Runs of older builds go: only this build's tests use this name now.
    for (const auto& e : std::filesystem::directory_iterator(root)) {
      const std::string sibling = e.path().filename().string();
      if (e.is_directory() && sibling.size() == name.size() + 17 &&
          sibling.rfind(name + "-", 0) == 0) {
        removeTree(e.path().string());
      }
    }
    std::filesystem::create_directories(shared.dir);
    std::vector<std::string> args = argv;
    for (std::string& a : args) {
      for (size_t at; (at = a.find("{dir}")) != std::string::npos;) a.replace(at, 5, shared.dir);
    }
    Ran r = runProcess(args);
    writeFile(shared.dir + "/out", r.out);
    writeFile(shared.dir + "/err", r.err);
    writeFile(shared.dir + "/status", std::to_string(r.status));
  }
  shared.ran.status = std::atoi(readFile(shared.dir + "/status").c_str());
  shared.ran.out = readFile(shared.dir + "/out");
  shared.ran.err = readFile(shared.dir + "/err");
  ::close(lock);
  return shared;
}

std::string makeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "strobe-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

void removeTree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t outputNumber(const std::string& out, const std::string& key) {
  std::istringstream in(out);
  std::string word;
  while (in >> word) {
    if (word.rfind(key + "=", 0) == 0) return std::stoull(word.substr(key.size() + 1));
  }
  ADD_FAILURE() << "no " << key << "= in: " << out;
  return 0;
}

int lineOf(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

std::vector<std::string> atNice(int adjustment, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/usr/bin/nice", "-n", std::to_string(adjustment)});
  return argv;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void sleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

bool waitForFile(const std::string& path, int seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int threadCount(int pid) {
  std::error_code ec;
  int tasks = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++tasks;
  }
  return tasks;
}

bool waitForSpanChannel(int pid, int threads, int seconds) {
  const std::string maps = "/proc/" + std::to_string(pid) + "/maps";
  for (int i = 0; i < seconds * 100; ++i) {
    if (threadCount(pid) >= threads &&
        readFile(maps).find("/memfd:strobe-channel") != std::string::npos) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void touch(const std::string& path) {
  if (std::FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
}

Background::Background(const std::vector<std::string>& argv)
    : dir_(makeTempDir()), pid_(startProcess(argv, dir_)) {}

Background::~Background() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitProcess(pid_, dir_);
  }
  removeTree(dir_);
}

Ran Background::stop(int sig) {
  ::kill(pid_, sig);
  return wait();
}

Ran Background::wait() {
  Ran r = waitProcess(pid_, dir_);
  pid_ = -1;
  return r;
}

}  // namespace strobe::test
