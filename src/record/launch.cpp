#include "record/launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

namespace strobe::record {
namespace {

// Where execvp finds `name`: itself when it holds a '/', else the first
// PATH entry (default PATH when unset) with a regular file of that name;
// "" when none exists.
std::string findInPath(const std::string& name) {
  struct stat st {};
  auto isFile = [&](const std::string& p) {
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  };
  if (name.find('/') != std::string::npos) return isFile(name) ? name : std::string();
  const char* env = std::getenv("PATH");
  std::string path = env != nullptr ? env : "/bin:/usr/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (isFile(candidate)) return candidate;
    start = colon + 1;
  }
  return {};
}

// The interpreter named by the #! line of `file`, "" when it has none.
std::string scriptInterpreter(const std::string& file) {
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  char buf[256];
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n < 3 || buf[0] != '#' || buf[1] != '!') return {};
  std::string line(buf + 2, static_cast<size_t>(n) - 2);
  line = line.substr(0, line.find('\n'));
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  size_t e = line.find_first_of(" \t\r", b);
  return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace

Result<HeldChild> HeldChild::spawn(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& extra_env) {
  if (argv.empty())
    return makeError("no command to run", "usage: strobe record -- CMD [ARGS]", ErrorKind::kUsage);
  int go[2];
  int err[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return systemError("cannot create a pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(go[0]);
    ::close(go[1]);
    return systemError("cannot create a pipe");
  }
  // Build argv before fork: the child must not allocate.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment too: strobe's, with the extra variables replacing any
  // of the same name.
  std::vector<char*> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view var(*e);
    bool replaced = false;
    for (const std::string& x : extra_env) {
      size_t eq = x.find('=');
      if (eq != std::string::npos &&
          var.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1)) {
        replaced = true;
      }
    }
    if (!replaced) env.push_back(*e);
  }
  for (const std::string& x : extra_env) env.push_back(const_cast<char*>(x.c_str()));
  env.push_back(nullptr);

  const pid_t strobe_pid = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {go[0], go[1], err[0], err[1]}) ::close(fd);
    errno = e;
    return systemError("cannot fork");
  }
  if (pid == 0) {
    // A command must not outlive a killed strobe unseen (its events die with
    // strobe, nobody would wait for it): SIGTERM when strobe dies, as at the
    // end of -d. Checked once more in case strobe died before the prctl.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != strobe_pid) ::_exit(127);
    ::close(go[1]);
    ::close(err[0]);
    char byte;
    ssize_t n;
    do {
      n = ::read(go[0], &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);  // strobe gave up before releasing us
    ::close(go[0]);
    ::execvpe(args[0], args.data(), env.data());
    int e = errno;
    ssize_t w = ::write(err[1], &e, sizeof e);
    (void)w;
    ::_exit(e == ENOENT ? 127 : 126);
  }
  ::close(go[0]);
  ::close(err[1]);
  return HeldChild(pid, Fd(go[1]), Fd(err[0]), argv[0]);
}

HeldChild::~HeldChild() {
  if (pid_ > 0 && !released_) {
    go_.reset();  // EOF: the child exits without exec'ing
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

Status HeldChild::release() {
  released_ = true;
  char byte = 1;
  if (::write(go_.get(), &byte, 1) != 1) return systemError("cannot start '" + name_ + "'");
  go_.reset();
  int e = 0;
  ssize_t n;
  do {
    n = ::read(exec_err_.get(), &e, sizeof e);
  } while (n < 0 && errno == EINTR);
  exec_err_.reset();
  if (n != static_cast<ssize_t>(sizeof e)) return {};  // EOF: exec succeeded
  int status;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (e == ENOENT) {
    // ENOENT also comes from a file that exists but whose interpreter (#!
    // line, or an ELF program's loader) does not.
    std::string file = findInPath(name_);
    if (file.empty()) {
      return makeError("command not found: " + name_, "check the name, or give its path",
                       ErrorKind::kNotFound);
    }
    std::string interpreter = scriptInterpreter(file);
    if (!interpreter.empty()) {
      return makeError(
          "cannot execute '" + name_ + "': its interpreter " + interpreter + " does not exist",
          "install " + interpreter + ", or fix the #! line of " + file, ErrorKind::kCannotExecute);
    }
    return makeError("cannot execute '" + name_ + "': its program loader does not exist",
                     "it was built for another system (check: file " + file + ")",
                     ErrorKind::kCannotExecute);
  }
  errno = e;
  return systemError("cannot execute '" + name_ + "'", "check that it is an executable file",
                     ErrorKind::kCannotExecute);
}

}  // namespace strobe::record
