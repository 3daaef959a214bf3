#include "record/launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace strobe::record {

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

  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {go[0], go[1], err[0], err[1]}) ::close(fd);
    errno = e;
    return systemError("cannot fork");
  }
  if (pid == 0) {
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
    return makeError("command not found: " + name_, "check the name, or give its path",
                     ErrorKind::kNotFound);
  }
  errno = e;
  return systemError("cannot execute '" + name_ + "'", "check that it is an executable file",
                     ErrorKind::kCannotExecute);
}

}  // namespace strobe::record
