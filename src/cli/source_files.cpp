#include "cli/source_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strobe::cli {
namespace {

constexpr off_t kMaxSourceBytes = off_t{16} << 20;

std::optional<std::vector<std::string>> load(const std::string& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxSourceBytes) {
    text.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    text.resize(done);
  } else {
    ::close(fd);
    return std::nullopt;
  }
  ::close(fd);
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    size_t end = nl > at && text[nl - 1] == '\r' ? nl - 1 : nl;
    lines.push_back(text.substr(at, end - at));
    at = nl + 1;
  }
  return lines;
}

}  // namespace

const std::vector<std::string>* SourceFiles::lines(const std::string& file) {
  auto [it, fresh] = files_.try_emplace(file);
  if (fresh) it->second = load(file);
  return it->second ? &*it->second : nullptr;
}

std::optional<std::string> SourceFiles::line(const std::string& file, uint32_t n) {
  const std::vector<std::string>* all = lines(file);
  if (all == nullptr || n == 0 || n > all->size()) return std::nullopt;
  return (*all)[n - 1];
}

}  // namespace strobe::cli
